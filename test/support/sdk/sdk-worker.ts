/**
 * A worker PROCESS built on the SDK's runWorker, for test/lib/sdk/sdk.int.test.ts. It reaches the app only over HTTP:
 *
 *   node --import tsx test/support/sdk/sdk-worker.ts <apiUrl> <workerToken> <workerId> count
 *   node --import tsx test/support/sdk/sdk-worker.ts <apiUrl> <workerToken> <workerId> order <halt> <orderServiceUrl>
 *
 * `count` serves examples' `example.slow_count` and `test.wait` (waits for its AbortSignal, reports nothing).
 * `order` serves `shop.create_order` against the order service (test/support/http-order-service.ts), stopping
 * forever at <halt> so that the test can SIGKILL it there (`never`: runs normally). `hosted-order` serves the same
 * tool as `hosted.create_order`, which the server does not have: the worker hosts its contract (lib/sdk/host.ts).
 *
 * It talks to the test on stdout, one JSON object per line: {"event":"ready"}, {"event":"claimed"|"stop_requested"|
 * "settled"|<halt point>, "workItemId", …}. Lease 1500 ms (SDK_WORKER_LEASE_MS), heartbeat every 300 ms.
 */
import { runWorker, StoplineClient, type ToolDefinition } from "../../../lib/sdk/index";
import { createOrderTool, isHaltPoint } from "../http-order-service";

const HOSTED_ORDER_TOOL = "hosted.create_order";
import { slowCountTool } from "../../../examples/slow-count-tool";

const [apiUrl, token, workerId, mode, halt, serviceUrl] = process.argv.slice(2);
const say = (message: Record<string, unknown>) => console.log(JSON.stringify({ ...message, workerId, pid: process.pid }));

let tools: ToolDefinition<any, any>[];
if (mode === "count") {
  const wait: ToolDefinition<unknown, null> = {
    name: "test.wait",
    kind: "local_worker",
    risk: "low",
    commitsEffect: false,
    mechanism: "abort_signal",
    run: (_input, ctx) => new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true })),
  };
  tools = [slowCountTool(), wait];
} else if (mode === "order" && halt && isHaltPoint(halt) && serviceUrl) {
  tools = [createOrderTool(serviceUrl, { halt, onHalt: (point, info) => say({ event: point, ...info }) })];
} else if (mode === "hosted-order" && halt && isHaltPoint(halt) && serviceUrl) {
  // The same tool under a name the server's registry does not have: only worker processes run it (and answer for it).
  tools = [{ ...createOrderTool(serviceUrl, { halt, onHalt: (point, info) => say({ event: point, ...info }) }), name: HOSTED_ORDER_TOOL }];
} else {
  console.error("usage: sdk-worker.ts <apiUrl> <token> <workerId> count | order <halt> <orderServiceUrl>");
  process.exit(2);
}

const stop = new AbortController();
process.once("SIGTERM", () => {
  // A run halted on purpose never ends: do not wait for it (its lease simply expires).
  if ((mode === "order" || mode === "hosted-order") && halt !== "never") process.exit(0);
  stop.abort();
});

const client = new StoplineClient({ baseUrl: apiUrl, token, retry: { baseDelayMs: 50, maxDelayMs: 500 } });
const done = runWorker({
  client,
  tools,
  workerId,
  concurrency: 4,
  pollMs: 100,
  signal: stop.signal,
  leaseMs: Number(process.env.SDK_WORKER_LEASE_MS ?? 1_500),
  heartbeatMs: 300,
  onEvent: (e) => {
    if (e.type === "claimed") say({ event: "claimed", workItemId: e.workItem.id, toolName: e.workItem.toolName });
    else if (e.type === "stop_requested") say({ event: "stop_requested", workItemId: e.workItemId, at: Date.now() });
    else if (e.type === "settled") say({ event: "settled", workItemId: e.workItemId, outcome: e.outcome, detail: e.detail ?? null });
    else console.error(`worker error (${e.workItemId ?? "-"}):`, e.error);
  },
});
say({ event: "ready", mode, halt: halt ?? null });
await done;
process.exit(0);
