/**
 * A worker PROCESS for crash tests (test/lib/workers/worker-crash.int.test.ts):
 *
 *   node --import tsx test/support/crash-worker.ts <databaseUrl> <orderServiceUrl> <halt> <workerId>
 *
 * Opens the ledger, registers `shop.create_order` against the order service and runs a WorkerPool with a short
 * lease (CRASH_WORKER_LEASE_MS, default 1500 ms). With a halt point (see HaltPoint) every run stops there and
 * waits forever — the test SIGKILLs the process at that moment. With `never` it is an ordinary restarted
 * worker, like `npm run worker`: it also runs the cancellation engine's maintenance pass, which recovers
 * expired leases and reconciles uncertain items through the tool's inspect().
 *
 * It talks to the test on stdout, one JSON object per line: {"event":"ready"}, {"event":"<halt point>",
 * "workItemId",…} when a run reached its halt point (after the ledger recorded everything before it), and
 * {"event":"settled","workItemId","outcome"} when a run ended. SIGTERM stops it gracefully.
 */
import { CancellationEngine } from "../../lib/cancellation/engine";
import { openDatabase } from "../../lib/db/client";
import { ToolRegistry } from "../../lib/tools/registry";
import { WorkerPool } from "../../lib/workers/worker-pool";
import { createOrderTool, HaltPoint, isHaltPoint } from "./http-order-service";

const [databaseUrl, serviceUrl, halt = HaltPoint.never, workerId = `crash-worker-${process.pid}`] = process.argv.slice(2);
if (!databaseUrl || !serviceUrl || !isHaltPoint(halt)) {
  console.error(`usage: crash-worker.ts <databaseUrl> <orderServiceUrl> <${Object.values(HaltPoint).join("|")}> [workerId]`);
  process.exit(2);
}

const say = (message: Record<string, unknown>) => console.log(JSON.stringify({ ...message, workerId, pid: process.pid }));

const database = openDatabase(databaseUrl);
const registry = new ToolRegistry().register(createOrderTool(serviceUrl, { halt, onHalt: (point, info) => say({ event: point, ...info }) }));
const pool = new WorkerPool({
  database,
  registry,
  workerId,
  concurrency: 1,
  pollMs: 100,
  leaseMs: Number(process.env.CRASH_WORKER_LEASE_MS ?? 1_500),
  onSettled: (workItemId, report) => say({ event: "settled", workItemId, outcome: report.outcome }),
});
const engine = halt === HaltPoint.never ? new CancellationEngine(database, { registry }) : null;

pool.start();
engine?.start(Number(process.env.STOPLINE_MAINTENANCE_MS ?? 200));
say({ event: "ready", halt });

process.once("SIGTERM", async () => {
  // A halted run never ends by itself: do not wait for it (its lease simply expires).
  if (halt !== HaltPoint.never) process.exit(0);
  await pool.stop();
  await engine?.stop();
  await database.close();
  process.exit(0);
});
