/**
 * A separate worker process for `npm run bench:pg` (the cancel fan-out): serves `bench.cooperative` — a child
 * that runs until its AbortSignal fires — with a worker pool and this process's live view, as `npm run worker`
 * does. Prints one JSON line per event: {"ready":n} when n children run, {"aborted":id,"at":ms} when a child's
 * signal fires (wall clock with sub-millisecond precision, comparable across processes on one machine).
 *   argv: <database url> <concurrency>
 */
import { openDatabase } from "../lib/db/client";
import { liveLedger } from "../lib/events/live";
import { ToolRegistry } from "../lib/tools/registry";
import { WorkerPool } from "../lib/workers/worker-pool";
import { stopWhenParentPipeCloses } from "../scripts/start/process-group";

const [url, concurrencyArg] = process.argv.slice(2);
const database = openDatabase(url);
await liveLedger(database).ready;
const now = () => performance.timeOrigin + performance.now();
let running = 0;
// The lines of one turn of the event loop go out in one write: a write to a pipe is a synchronous system call, and one
// per aborted child was ~11% of this process's CPU in part D (counted in its CPU per Stop). Each line keeps its own
// time, taken when its event happened.
const lines: string[] = [];
function emit(message: object) {
  if (lines.push(JSON.stringify(message)) === 1)
    setImmediate(() => {
      process.stdout.write(`${lines.join("\n")}\n`);
      lines.length = 0;
    });
}
const registry = new ToolRegistry().register({
  name: "bench.cooperative",
  kind: "local_worker",
  risk: "low",
  commitsEffect: false,
  mechanism: "abort_signal",
  run: (_input: unknown, ctx: { signal: AbortSignal; workItemId: string }) =>
    new Promise<never>((_, reject) => {
      running++;
      emit({ ready: running });
      ctx.signal.addEventListener(
        "abort",
        () => {
          emit({ aborted: ctx.workItemId, at: now() });
          running--;
          reject(ctx.signal.reason);
        },
        { once: true },
      );
    }),
});
const pool = new WorkerPool({ database, registry, concurrency: Number(concurrencyArg), leaseMs: 120_000, pollMs: 50 }).start();
let ending = false;
async function end() {
  if (ending) return; // SIGTERM and the end of stdin may both come
  ending = true;
  setTimeout(() => process.exit(1), 10_000).unref(); // its database may be gone already: the reports cannot wait
  await pool.stop();
  await database.close();
  process.exit(0);
}
process.on("SIGTERM", end);
// When the bench ends (a part failed, it was killed) so does this process — left behind, it retried a database the
// bench had dropped at a third of a core for as long as nobody noticed.
stopWhenParentPipeCloses(end);
