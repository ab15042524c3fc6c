import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { ownerScope } from "@/lib/auth/ownership";
import { ledgerEventStream, resumePoint, SSE_HEADERS, streamOwnerKey } from "@/lib/events/sse";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = withRoute(contract.allEvents, async ({ request, database, principal, query }) => {
  const stream = await ledgerEventStream({
    database, afterSeq: resumePoint(request, query.lastEventId, "now"), ownerId: ownerScope(principal),
    principalKey: streamOwnerKey(principal), signal: request.signal,
  });
  return new Response(stream, { headers: SSE_HEADERS });
});
