/**
 * A process of the random conformance mode's crash runs — Stopline's real runtime for one slot, to be killed with
 * SIGKILL at a random moment and started again:
 *
 *   node --import tsx lib/conformance/random/app-process.ts <databaseUrl> <demoUrl> <app|worker|both> <id>
 *
 * `worker`: a WorkerPool claiming and running the demo tools' calls (short lease, frequent heartbeats, so that a
 * killed worker's calls are taken over soon); `app`: the cancellation engine with its maintenance pass (it runs
 * every Stop the kit records, resumes what a dead process left, reconciles, verifies); `both`: one process with
 * both. It prints {"event":"ready"} on stdout when it runs. SIGTERM stops it gracefully.
 *
 * With RANDOM_STANDBY=1 it loads everything and then waits for a line "go" on stdin before it starts: the kit keeps
 * one such process ready per role, so that "start it again" after a kill -9 is a fresh process that starts at once
 * instead of after a whole Node start-up (seconds on a loaded machine).
 */
import { CancellationEngine } from "../../cancellation/engine";
import { openDatabase } from "../../db/client";
import { demoTools } from "../../demo/tools";
import { ToolRegistry } from "../../tools/registry";
import { WorkerPool } from "../../workers/worker-pool";
import { plantedDishonestOrder } from "./planted";
import { ENGINE_OPTIONS, WORKER_OPTIONS } from "./settings";

const [databaseUrl, demoUrl, role, id = `random-${process.pid}`] = process.argv.slice(2);
if (!databaseUrl || !demoUrl || !["app", "worker", "both"].includes(role)) {
  console.error("usage: app-process.ts <databaseUrl> <demoUrl> <app|worker|both> [id]");
  process.exit(2);
}
if (process.env.RANDOM_STANDBY === "1") {
  console.log(JSON.stringify({ event: "standby", role, id, pid: process.pid }));
  await new Promise<void>((resolve) => {
    let input = "";
    process.stdin.on("data", (d) => {
      input += d;
      if (input.includes("go")) resolve();
    });
  });
}
const database = openDatabase(databaseUrl);
const registry = new ToolRegistry();
for (const tool of demoTools({ baseUrl: demoUrl, callTimeoutMs: WORKER_OPTIONS.callTimeoutMs, pollMs: 20 })) {
  // RANDOM_PLANT=dishonest_order: the kit's self-test plants a lying shop.create_order (planted.ts) that it must catch.
  registry.register(process.env.RANDOM_PLANT === "dishonest_order" && tool.name === "shop.create_order" ? plantedDishonestOrder(tool, demoUrl) : tool);
}
const pool =
  role === "app"
    ? null
    : new WorkerPool({
        database,
        registry,
        workerId: `${id}-worker`,
        concurrency: 6,
        pollMs: WORKER_OPTIONS.pollMs,
        leaseMs: WORKER_OPTIONS.leaseMs,
        heartbeatMs: WORKER_OPTIONS.heartbeatMs,
      }).start();
const engine = role === "worker" ? null : new CancellationEngine(database, { registry, ...ENGINE_OPTIONS }).start(ENGINE_OPTIONS.maintenanceMs);
console.log(JSON.stringify({ event: "ready", role, id, pid: process.pid }));
process.once("SIGTERM", async () => {
  await Promise.race([Promise.all([pool?.stop(), engine?.stop()]), new Promise((r) => setTimeout(r, 3_000))]);
  await database.close().catch(() => {});
  process.exit(0);
});
