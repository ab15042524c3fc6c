import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { liveLedger } from "@/lib/events/live";
import { eventStreamOptions, SSE_HEADERS } from "@/lib/events/sse";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// (npm start serves this path on its own lane — lib/events/direct-lane.ts — with the same checks.)
export const GET = withRoute(contract.taskEvents, async ({ request, database, principal, params, query }) => {
  const options = await eventStreamOptions(database, principal, {
    taskId: params.taskId,
    lastEventIdHeader: request.headers.get("last-event-id"),
    lastEventIdQuery: query.lastEventId,
  });
  return new Response(await liveLedger(database).subscribe({ ...options, signal: request.signal }), { headers: SSE_HEADERS });
});
