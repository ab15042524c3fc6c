/**
 * An agent runtime outside the app, using the Stopline SDK: creates a task, schedules three
 * `example.slow_count` work items (served by examples/external-worker.ts), waits a moment, presses Stop,
 * follows the task's ledger events until the cancellation summary is no longer IN_PROGRESS, and prints it.
 *
 *   STOPLINE_URL=http://localhost:3000 STOPLINE_TOKEN=<agent token> npx tsx examples/agent.ts
 *
 * Optional: STOPLINE_STOP_AFTER_MS (how long to let the counts run before Stop, default 2000),
 * STOPLINE_AGENT_TIMEOUT_MS (give up following after this long, default 60000).
 * Exit code 0 once the summary is settled, 1 on an error or a timeout.
 */
import { StoplineClient, type CancellationSummary, type LedgerEvent } from "../lib/sdk";
import { SLOW_COUNT } from "./slow-count-tool";

const baseUrl = process.env.STOPLINE_URL ?? "http://localhost:3000";
const token = process.env.STOPLINE_TOKEN;
if (!token) {
  console.error("STOPLINE_TOKEN is not set: create an agent token with\n  npm run token:create -- --role agent --name example-agent");
  process.exit(2);
}
const stopAfterMs = Number(process.env.STOPLINE_STOP_AFTER_MS ?? 2_000);
const timeoutMs = Number(process.env.STOPLINE_AGENT_TIMEOUT_MS ?? 60_000);
const client = new StoplineClient({ baseUrl, token });

const task = await client.createTask({ title: "Count to 200, three times (Stopline SDK example)", conversationId: `example-agent-${Date.now()}` });
console.log(`created task ${task.id} (intent version ${task.intentVersion})`);

for (const n of [1, 2, 3]) {
  // A correlationId makes scheduling idempotent: the SDK may retry it safely.
  const item = await client.scheduleWorkItem(task.id, {
    kind: "local_worker",
    toolName: SLOW_COUNT,
    mechanism: "abort_signal",
    intentVersion: task.intentVersion,
    correlationId: `count-${n}`,
    input: { to: 200, stepMs: 50 },
  });
  console.log(`scheduled ${item.id} ${item.toolName} (${item.correlationId})`);
}

await new Promise((resolve) => setTimeout(resolve, stopAfterMs));

const stop = await client.cancel(task.id, { reason: "the user pressed Stop (examples/agent.ts)" });
if (stop.kind === "boundary") console.log(`Stop recorded at ${stop.boundary.cancelRequestedAt}: intent version ${stop.boundary.intentVersion}`);
else console.log(`the task had already finished (${stop.stage})`);

// Follow the task's events — its whole history first, then live; a dropped connection resumes by itself —
// until the summary is settled: checked when the task settles (task.cancelled), and every 2 s for the cases
// where the summary settles before the task does (an unstoppable child still running: CANCELLATION_FAILED).
const follow = new AbortController();
let summary: CancellationSummary | null = null;
const settledSummary = async () => {
  const current = await client.getCancellation(task.id);
  if (current.status !== "IN_PROGRESS") summary = current;
  return summary;
};
const timer = setTimeout(() => follow.abort(), timeoutMs);
const poll = setInterval(
  () =>
    void settledSummary().then(
      (s) => s && follow.abort(),
      () => {},
    ),
  2_000,
);
const show = (e: LedgerEvent) =>
  console.log(
    `  #${e.seq} ${e.type}${e.fromState || e.toState ? ` ${e.fromState ?? "∅"} → ${e.toState ?? "∅"}` : ""} (${e.actor})${e.reason ? ` — ${e.reason}` : ""}`,
  );
try {
  for await (const event of client.events({ taskId: task.id, signal: follow.signal })) {
    show(event);
    if (event.type === "task.cancelled" && (await settledSummary())) break;
  }
} finally {
  clearTimeout(timer);
  clearInterval(poll);
}
const final = summary ?? (await settledSummary());
if (!final) {
  console.error(`the summary was still IN_PROGRESS after ${timeoutMs} ms`);
  process.exit(1);
}

console.log(`\nCancellation summary (${final.status}):`);
console.log(JSON.stringify(final, null, 2));
console.log(`\n${final.user_message}`);
