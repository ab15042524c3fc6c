/**
 * npm run bench:cancel — on the embedded SQLite database with the in-process worker pool and engine:
 *  A. one task with 1,000 queued and 100 running cooperative children (5 repetitions): time to the
 *     boundary, time until every queued child is cancelled, time until each running child observed its
 *     AbortSignal (p50/p99 per child, from the boundary's commit);
 *  B. 50 tasks stopped at once (the same 1,000 queued and 100 running children, spread 20 + 2 per task):
 *     boundary p50/p99 and time until all 50 tasks are settled.
 * Targets: boundary p99 < 20 ms; all queued cancelled < 200 ms; every running child signalled within 100 ms
 * of the boundary (p99). The last line is one JSON object with the figures.
 */
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { CancellationEngine } from "../lib/cancellation/engine";
import { requestCancellation } from "../lib/cancellation/steps/1-record-boundary";
import { openDatabase, type Database } from "../lib/db/client";
import { migrate } from "../lib/db/migrate";
import { onCommitted } from "../lib/events/bus";
import { createTask } from "../lib/ledger/create-task";
import { scheduleWorkItem } from "../lib/ledger/schedule-work-item";
import { ToolRegistry } from "../lib/tools/registry";
import { WorkerPool } from "../lib/workers/worker-pool";
import { size } from "./smoke";
import { percentile, round } from "./stats";

const DIR = path.resolve(import.meta.dirname, "..", "output", "bench");
const QUEUED = size(1000, 100);
const RUNNING = size(100, 10);
const REPEAT = Number(process.env.BENCH_REPEAT ?? size(5, 1));
const TASKS = size(50, 5); // part B: this many tasks stopped at once

/** When each running child's AbortSignal fired (performance.now()), by work item id. */
const signalledAt = new Map<string, number>();
const started = new Set<string>();

function registries() {
  const cooperative = {
    name: "bench.cooperative",
    kind: "local_worker" as const,
    risk: "low" as const,
    commitsEffect: false,
    mechanism: "abort_signal" as const,
    run: (_input: unknown, ctx: { signal: AbortSignal; workItemId: string }) =>
      new Promise<never>((_, reject) => {
        started.add(ctx.workItemId);
        ctx.signal.addEventListener(
          "abort",
          () => {
            signalledAt.set(ctx.workItemId, performance.now());
            reject(ctx.signal.reason);
          },
          { once: true },
        );
      }),
  };
  const queuedOnly = { ...cooperative, name: "bench.queued" };
  // The pool serves only the cooperative tool, so the queued children stay queued (as if every worker were busy).
  return { pool: new ToolRegistry().register(cooperative), engine: new ToolRegistry().register(cooperative).register(queuedOnly) };
}

async function freshDatabase(name: string): Promise<Database> {
  mkdirSync(DIR, { recursive: true });
  for (const suffix of ["", "-wal", "-shm"]) rmSync(path.join(DIR, `${name}${suffix}`), { force: true });
  const url = `file:${path.join(DIR, name)}`;
  await migrate(url);
  return openDatabase(url);
}

async function schedule(database: Database, taskId: string, tool: string, n: number) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++)
    ids.push((await scheduleWorkItem(database, { taskId, kind: "local_worker", toolName: tool, mechanism: "abort_signal", intentVersion: 1 }, "bench")).id);
  return ids;
}

async function until(predicate: () => boolean | Promise<boolean>, timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Time from `since` until `count` events of `type` (for `taskIds`) are committed. */
function eventClock(type: string, taskIds: Set<string>, count: number) {
  let seen = 0;
  let at = NaN;
  const off = onCommitted((events) => {
    for (const e of events) if (e.type === type && e.taskId && taskIds.has(e.taskId) && ++seen === count) at = performance.now();
  });
  return { done: () => seen >= count, at: () => at, off };
}

async function scenario(database: Database, tasks: number, runningPerTask: number, queuedPerTask: number) {
  const { pool: poolTools, engine: engineTools } = registries();
  // The boundary's commit moment: when its event is announced (right after COMMIT), per task. Subscribed
  // before the pool so that it is timestamped before the runners react to the same announcement.
  const taskSet = new Set<string>();
  const boundaryCommittedAt = new Map<string, number>();
  const offBoundary = onCommitted((events) => {
    for (const e of events) if (e.type === "task.cancel_requested" && e.taskId && taskSet.has(e.taskId)) boundaryCommittedAt.set(e.taskId, performance.now());
  });
  const pool = new WorkerPool({ database, registry: poolTools, concurrency: RUNNING, leaseMs: 60_000 }).start();
  const engine = new CancellationEngine(database, { registry: engineTools, verifyDelayMs: 0, settleTimeoutMs: 5_000 }).start(60_000);
  const ids: string[] = [];
  const running: string[] = [];
  for (let t = 0; t < tasks; t++) {
    const task = await createTask(database, { title: `bench ${t}`, ownerId: "bench" }, "bench");
    ids.push(task.id);
    running.push(...(await schedule(database, task.id, "bench.cooperative", runningPerTask)));
    await schedule(database, task.id, "bench.queued", queuedPerTask);
  }
  await until(() => running.every((id) => started.has(id)));
  for (const id of ids) taskSet.add(id);
  const queuedClock = eventClock("work_item.removed_from_dispatch", taskSet, tasks * queuedPerTask);
  const settledClock = eventClock("task.cancelled", taskSet, tasks);

  const boundaryLatency: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    ids.map(async (taskId) => {
      const s = performance.now();
      await requestCancellation(database, { taskId, reason: "bench", actor: "bench" });
      boundaryLatency.push(performance.now() - s);
    }),
  );
  await until(() => queuedClock.done() && settledClock.done());
  const lastBoundary = Math.max(...boundaryCommittedAt.values());
  const taskOf = new Map<string, string>();
  for (const item of await database.prisma.workItem.findMany({ where: { id: { in: running } }, select: { id: true, taskId: true } }))
    taskOf.set(item.id, item.taskId);
  const signal = running.map((id) => signalledAt.get(id)! - boundaryCommittedAt.get(taskOf.get(id)!)!);
  queuedClock.off();
  settledClock.off();
  offBoundary();
  await pool.stop();
  await engine.stop();
  return {
    boundary: boundaryLatency,
    allQueuedCancelledMs: queuedClock.at() - lastBoundary,
    signal,
    allSettledMs: settledClock.at() - t0,
  };
}

const single = { boundary: [] as number[], queued: [] as number[], signal: [] as number[], settled: [] as number[] };
for (let r = 0; r < REPEAT; r++) {
  const database = await freshDatabase(`cancel-single-${r}.db`);
  const result = await scenario(database, 1, RUNNING, QUEUED);
  single.boundary.push(...result.boundary);
  single.queued.push(result.allQueuedCancelledMs);
  single.signal.push(...result.signal);
  single.settled.push(result.allSettledMs);
  await database.close();
  console.log(
    `run ${r + 1}: boundary ${round(result.boundary[0])} ms, all ${QUEUED} queued cancelled ${round(result.allQueuedCancelledMs)} ms after it, signals p99 ${round(percentile(result.signal, 99))} ms, task settled ${round(result.allSettledMs)} ms`,
  );
}
console.log(
  `A. 1 task, ${QUEUED} queued + ${RUNNING} running, ${REPEAT} runs: boundary p50 ${round(percentile(single.boundary, 50))} ms, p99 ${round(percentile(single.boundary, 99))} ms; all queued cancelled (median of runs) ${round(percentile(single.queued, 50))} ms; running children signalled p50 ${round(percentile(single.signal, 50))} ms, p99 ${round(percentile(single.signal, 99))} ms`,
);

const database = await freshDatabase("cancel-50.db");
const many = await scenario(database, TASKS, RUNNING / TASKS, QUEUED / TASKS);
await database.close();
console.log(
  `B. ${TASKS} tasks stopped at once (${QUEUED / TASKS} queued + ${RUNNING / TASKS} running each): boundary p50 ${round(percentile(many.boundary, 50))} ms, p99 ${round(percentile(many.boundary, 99))} ms; all queued cancelled ${round(many.allQueuedCancelledMs)} ms after the last boundary; signals p99 ${round(percentile(many.signal, 99))} ms; all ${TASKS} settled ${round(many.allSettledMs)} ms`,
);

console.log(
  JSON.stringify({
    boundary_p99_ms: round(percentile(single.boundary, 99)),
    all_queued_cancelled_ms: round(percentile(single.queued, 50)),
    signal_p99_ms: round(percentile(single.signal, 99)),
    tasks50_all_settled_ms: round(many.allSettledMs),
    tasks50_boundary_p99_ms: round(percentile(many.boundary, 99)),
    tasks50_signal_p99_ms: round(percentile(many.signal, 99)),
  }),
);
process.exit(0);
