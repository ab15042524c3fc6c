/**
 * An external worker process: serves the local tool `example.slow_count` over Stopline's HTTP worker protocol.
 *
 *   STOPLINE_URL=http://localhost:3000 STOPLINE_TOKEN=<worker token> npx tsx examples/external-worker.ts
 *
 * It claims queued `example.slow_count` work items, runs up to 4 at once, heartbeats their leases — a Stop
 * reaches the running count on its next heartbeat as an AbortSignal — and reports how each ended (completed,
 * or after a Stop: partial with the numbers counted so far). Ctrl-C stops claiming and lets running items
 * finish; if the process is killed instead, the server's lease recovery takes over.
 *
 * Optional: STOPLINE_WORKER_ID (default example-worker-<pid>), STOPLINE_HEARTBEAT_MS (default 1000).
 */
import { runWorker, StoplineClient, type WorkerEvent } from "../lib/sdk";
import { SLOW_COUNT, slowCountTool } from "./slow-count-tool";

const baseUrl = process.env.STOPLINE_URL ?? "http://localhost:3000";
const token = process.env.STOPLINE_TOKEN;
if (!token) {
  console.error("STOPLINE_TOKEN is not set: create a worker token with\n  npm run token:create -- --role worker --name example-worker");
  process.exit(2);
}
const workerId = process.env.STOPLINE_WORKER_ID ?? `example-worker-${process.pid}`;
const client = new StoplineClient({ baseUrl, token });

const stop = new AbortController();
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    console.log(`${signal}: no new claims; waiting for the running items to end`);
    stop.abort();
  });
}

const log = (event: WorkerEvent) => {
  switch (event.type) {
    case "claimed":
      console.log(`claimed   ${event.workItem.id} ${event.workItem.toolName} (${event.workItem.correlationId}) input=${JSON.stringify(event.workItem.input)}`);
      break;
    case "stop_requested":
      console.log(`stop      ${event.workItemId}: the heartbeat reported the Stop; AbortSignal fired`);
      break;
    case "settled":
      console.log(`settled   ${event.workItemId} → ${event.outcome}${event.detail ? ` (${event.detail})` : ""}`);
      break;
    case "error":
      console.error(`error     ${event.workItemId ?? ""} ${(event.error as Error)?.message ?? event.error}`);
      break;
  }
};

console.log(`external worker ${workerId} serving ${SLOW_COUNT} at ${baseUrl}`);
try {
  await runWorker({
    client,
    tools: [slowCountTool({ onProgress: (p) => console.log(`progress  ${p.toolCallId}: ${p.counted}/${p.of}`) })],
    workerId,
    concurrency: 4,
    leaseMs: 10_000,
    heartbeatMs: Number(process.env.STOPLINE_HEARTBEAT_MS ?? 1_000),
    pollMs: 500,
    signal: stop.signal,
    onEvent: log,
  });
  console.log("worker stopped");
} catch (error) {
  console.error(`worker refused by the server: ${(error as Error).message}`);
  process.exit(1);
}
