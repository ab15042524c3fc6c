/**
 * npm run bench:ledger — on the embedded SQLite database (a fresh file under output/bench/):
 *  1. durable ledger transitions per second: work item claim (queued → running) and completion
 *     (running → completed), each a compare-and-set with its event in one synchronous=FULL transaction;
 *  2. side by side, raw single-row synchronous=FULL commits per second with better-sqlite3 on the same disk;
 *  3. POST /api/tasks/{id}/cancel latency (p50/p99) through the real route handler (auth, zod, domain call,
 *     serialisation; no HTTP socket) while 8 workers claim and complete items on the same database: first
 *     8 in-process workers (how `npm start` runs on the embedded database), then 8 worker processes.
 * The last line is one JSON object with the figures.
 */
import { spawn } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { createApiToken } from "../lib/auth/tokens";
import { openDatabase, type Database } from "../lib/db/client";
import { migrate } from "../lib/db/migrate";
import { claimWorkItem } from "../lib/ledger/claim-work-item";
import { completeWorkItem } from "../lib/ledger/complete-work-item";
import { createTask } from "../lib/ledger/create-task";
import { scheduleWorkItem } from "../lib/ledger/schedule-work-item";
import { size } from "./smoke";
import { percentile, round } from "./stats";

const DIR = path.resolve(import.meta.dirname, "..", "output", "bench");
const ITEMS = Number(process.env.BENCH_ITEMS ?? size(1500, 100));
const CANCELS = Number(process.env.BENCH_CANCELS ?? size(200, 10));
const WORKERS = size(8, 2);

async function freshDatabase(name: string): Promise<{ url: string; database: Database }> {
  mkdirSync(DIR, { recursive: true });
  for (const suffix of ["", "-wal", "-shm"]) rmSync(path.join(DIR, `${name}${suffix}`), { force: true });
  const url = `file:${path.join(DIR, name)}`;
  await migrate(url);
  return { url, database: openDatabase(url) };
}

async function ledgerTransitionsPerSecond(): Promise<number> {
  const { database } = await freshDatabase("ledger.db");
  const task = await createTask(database, { title: "bench", ownerId: "bench" }, "bench");
  for (let i = 0; i < ITEMS; i++) {
    await scheduleWorkItem(database, { taskId: task.id, kind: "local_worker", toolName: "bench.tps", mechanism: "abort_signal", intentVersion: 1 }, "bench");
  }
  const started = performance.now();
  let transitions = 0;
  for (;;) {
    const item = await claimWorkItem(database, { workerId: "bench", toolNames: ["bench.tps"] });
    if (!item) break;
    await completeWorkItem(database, { workItemId: item.id, leaseToken: item.leaseToken!, outcome: "completed", actor: "worker:bench" });
    transitions += 2;
  }
  const seconds = (performance.now() - started) / 1000;
  await database.close();
  if (transitions !== ITEMS * 2) throw new Error(`expected ${ITEMS * 2} transitions, made ${transitions}`);
  return transitions / seconds;
}

function rawCommitsPerSecond(): number {
  mkdirSync(DIR, { recursive: true });
  const file = path.join(DIR, "raw.db");
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
  const db = new BetterSqlite3(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.exec("CREATE TABLE r (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  const insert = db.prepare("INSERT INTO r (v) VALUES (?)");
  const n = ITEMS * 2;
  const started = performance.now();
  for (let i = 0; i < n; i++) insert.run(`row ${i}`);
  const seconds = (performance.now() - started) / 1000;
  db.close();
  return n / seconds;
}

type WorkerMode = "in-process" | "processes";

async function cancelLatencyUnderLoad(mode: WorkerMode): Promise<{ p50: number; p99: number; workerItems: number }> {
  const { url, database } = await freshDatabase(`cancel-${mode}.db`);
  (globalThis as unknown as { stoplineDb?: Database }).stoplineDb = database; // the route handler's db()
  const { token } = await createApiToken(database, { name: "bench-agent", role: "agent" });
  const { POST } = await import("../app/api/tasks/[taskId]/cancel/route");

  let running = true;
  const stopWorkers: (() => void)[] = [];
  const counts: Promise<number>[] = [];
  for (let i = 0; i < WORKERS; i++) {
    if (mode === "processes") {
      const { NODE_CHANNEL_FD: _ipc, ...env } = process.env;
      const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "worker-process.ts"), url, `w${i}`], {
        stdio: ["ignore", "pipe", "inherit"],
        env,
      });
      let out = "";
      child.stdout!.on("data", (d) => (out += d));
      counts.push(new Promise((resolve) => child.on("exit", () => resolve(out ? JSON.parse(out.trim().split("\n").at(-1)!).done : 0))));
      stopWorkers.push(() => child.kill("SIGTERM"));
    } else {
      counts.push(
        (async () => {
          let done = 0;
          while (running) {
            const item = await claimWorkItem(database, { workerId: `w${i}`, toolNames: ["bench.work"] });
            if (!item) {
              await new Promise((r) => setTimeout(r, 5));
              continue;
            }
            await completeWorkItem(database, { workItemId: item.id, leaseToken: item.leaseToken!, outcome: "completed", actor: `worker:w${i}` }).catch(
              () => {},
            );
            done++;
          }
          return done;
        })(),
      );
    }
  }
  // Keep the workers busy: a background feeder schedules items while cancels are measured.
  const feeder = (async () => {
    const task = await createTask(database, { title: "bench load", ownerId: "bench" }, "bench");
    while (running) {
      for (let i = 0; i < 8; i++) {
        await scheduleWorkItem(
          database,
          { taskId: task.id, kind: "local_worker", toolName: "bench.work", mechanism: "abort_signal", intentVersion: 1 },
          "bench",
        );
      }
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  await new Promise((r) => setTimeout(r, size(2_000, 300))); // let the workers start and reach a steady state
  // …and be sure they work (worker processes take a moment to start): a figure measured beside idle workers is no figure.
  for (const end = Date.now() + 60_000; (await database.prisma.workItem.count({ where: { status: "completed" } })) < WORKERS; ) {
    if (Date.now() > end) throw new Error(`the ${mode} workers completed no items within 60 s`);
    await new Promise((r) => setTimeout(r, 50));
  }

  const latencies: number[] = [];
  for (let i = 0; i < CANCELS; i++) {
    const task = await createTask(database, { title: `stop me ${i}`, ownerId: "bench" }, "bench");
    await scheduleWorkItem(database, { taskId: task.id, kind: "local_worker", toolName: "bench.work", mechanism: "abort_signal", intentVersion: 1 }, "bench");
    const request = new Request(`http://localhost/api/tasks/${task.id}/cancel`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ reason: "bench" }),
    });
    const started = performance.now();
    const response = await POST(request, { params: Promise.resolve({ taskId: task.id }) });
    latencies.push(performance.now() - started);
    if (response.status !== 202) throw new Error(`cancel answered ${response.status}: ${await response.text()}`);
  }
  running = false;
  for (const stop of stopWorkers) stop();
  await feeder;
  const workerItems = (await Promise.all(counts)).reduce((a, b) => a + b, 0);
  await database.close();
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), workerItems };
}

const ledgerTps = await ledgerTransitionsPerSecond();
console.log(`ledger transitions/s (claim + complete, each with its event, synchronous=FULL): ${round(ledgerTps, 0)}`);
const rawTps = rawCommitsPerSecond();
console.log(`raw single-row commits/s (better-sqlite3, WAL, synchronous=FULL, same disk):  ${round(rawTps, 0)}`);
console.log(`ratio ledger/raw: ${round(ledgerTps / rawTps, 3)} (target ≥ 0.5)`);
const cancel = await cancelLatencyUnderLoad("in-process");
console.log(
  `POST /api/tasks/{id}/cancel, ${WORKERS} in-process workers claiming and completing (${cancel.workerItems} items meanwhile): p50 ${round(cancel.p50)} ms, p99 ${round(cancel.p99)} ms over ${CANCELS} cancels`,
);
const cancelProcesses = await cancelLatencyUnderLoad("processes");
console.log(
  `POST /api/tasks/{id}/cancel, ${WORKERS} worker processes on the same SQLite file (${cancelProcesses.workerItems} items meanwhile): p50 ${round(cancelProcesses.p50)} ms, p99 ${round(cancelProcesses.p99)} ms`,
);
console.log(
  JSON.stringify({
    ledger_tps: round(ledgerTps, 1),
    raw_tps: round(rawTps, 1),
    ratio: round(ledgerTps / rawTps, 3),
    cancel_p50_ms: round(cancel.p50),
    cancel_p99_ms: round(cancel.p99),
    cancel_processes_p50_ms: round(cancelProcesses.p50),
    cancel_processes_p99_ms: round(cancelProcesses.p99),
  }),
);
process.exit(0);
