import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { latestEventSeq } from "@/lib/ledger/queries";
import { ledgerEventStream, resumePoint, SSE_HEADERS } from "@/lib/events/sse";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = withRoute(contract.allEvents, async ({ request, database, query }) => {
  const afterSeq = resumePoint(request, query.lastEventId, await latestEventSeq(database));
  return new Response(ledgerEventStream({ database, afterSeq, signal: request.signal }), { headers: SSE_HEADERS });
});
