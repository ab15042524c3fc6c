import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { assertTaskAccess } from "@/lib/auth/ownership";
import { getTaskDetail } from "@/lib/ledger/queries";
import { ledgerEventStream, resumePoint, SSE_HEADERS, streamOwnerKey } from "@/lib/events/sse";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = withRoute(contract.taskEvents, async ({ request, database, principal, params, query }) => {
  await assertTaskAccess(database, principal, params.taskId);
  await getTaskDetail(database, params.taskId); // 404 for an unknown task, before the stream opens
  const stream = await ledgerEventStream({
    database, taskId: params.taskId, afterSeq: resumePoint(request, query.lastEventId, 0),
    principalKey: streamOwnerKey(principal), signal: request.signal,
  });
  return new Response(stream, { headers: SSE_HEADERS });
});
