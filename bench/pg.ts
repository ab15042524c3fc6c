/**
 * npm run bench:pg — Stopline on PostgreSQL, side by side with the best PostgreSQL job queue, in one run on the
 * same server (TEST_PG_URL, else 127.0.0.1:5432; without one it says so and exits 1):
 *
 *  A. claim → complete of BENCH_PG_ITEMS (10,000) no-op items with 8 workers, alternating BENCH_PG_ROUNDS (3)
 *     rounds of: Stopline (the real WorkerPool + runWorkItem in one process, with the process's live view
 *     running, as `npm run worker` runs) · graphile-worker unbatched (its defaults, concurrency 8) · graphile-worker
 *     with its batching (completeJobBatchDelay 0 + localQueue) · Stopline on embedded SQLite (same harness).
 *     Medians and ratios.
 *  B. cancel fan-out: a task with 1,000 queued children and 100 running ones in ANOTHER worker process
 *     (bench/pg-worker.ts); Stop in this process (its engine removes the queued children): boundary latency,
 *     boundary → all queued cancelled, boundary → each running child's AbortSignal in the other process; 5 runs;
 *     then 50 tasks stopped at once (boundary p99).
 *  C. SSE: one app process (the server `npm start` runs, on the bench database); 100 then 1,000 subscribers to /api/events;
 *     100 events committed by this process 20 ms apart: delivery latency p99 (receipt − commit) and the app
 *     process's CPU per event.
 *  D. HTTP: POST /api/tasks and POST /api/tasks/{id}/cancel with 16 concurrent clients (autocannon), 3 rounds of
 *     8 s each: requests/s and p99.
 * The last line is one JSON object with the figures.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import autocannon from "autocannon";
import { Logger as GraphileLogger, run as runGraphile, makeWorkerUtils } from "graphile-worker";
import pg from "pg";
import { createApiToken } from "../lib/auth/tokens";
import { CancellationEngine } from "../lib/cancellation/engine";
import { requestCancellation } from "../lib/cancellation/request-cancellation";
import { openDatabase, type Database } from "../lib/db/client";
import { migrate } from "../lib/db/migrate";
import { onCommitted } from "../lib/events/bus";
import { liveLedger } from "../lib/events/live";
import { readEventStream } from "../lib/events/read-sse";
import { createTask } from "../lib/ledger/create-task";
import { ToolRegistry } from "../lib/tools/registry";
import { WorkerPool } from "../lib/workers/worker-pool";
import { buildNeeded, writeStamp } from "../scripts/start/build-stamp";
import { size } from "./smoke";
import { percentile, round } from "./stats";

const ROOT = path.resolve(import.meta.dirname, "..");
const ADMIN_URL = process.env.TEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const ITEMS = Number(process.env.BENCH_PG_ITEMS ?? size(10_000, 300));
const ROUNDS = Number(process.env.BENCH_PG_ROUNDS ?? size(3, 1));
const WORKERS = 8;
const TASKS = 100; // the items are spread over 100 tasks (an agent's turn has a handful to a few hundred children)
const PORT = Number(process.env.BENCH_PG_PORT ?? 3950);
const PARTS = process.env.BENCH_PG_PARTS ?? "ABCD"; // to run parts alone while working on one
// Part A's sides besides Stopline on PostgreSQL (e.g. "" to profile Stopline alone; the figures need all of them).
const SIDES = process.env.BENCH_PG_A_SIDES ?? "graphile,batched,sqlite";
const log = (line: string) => console.log(line);
const wallNow = () => performance.timeOrigin + performance.now();
const median = (xs: number[]) => percentile(xs, 50);

// ---- databases -----------------------------------------------------------------------------------------

async function postgresAnswers(): Promise<boolean> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3_000 });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

const created: string[] = [];
async function freshPgUrl(label: string): Promise<string> {
  const name = `stopline_bench_${label}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  created.push(name);
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * WAL written per item, per side (bytes): on PostgreSQL each commit waits for its WAL to reach the disk, so the
 * volume a job writes bounds the rate as much as the statements do. Cluster-wide, so anything else writing to
 * the same server meanwhile counts too (on a quiet server it is the side's own).
 */
const walPerItem = { stopline: [] as number[], graphile: [] as number[], graphileBatched: [] as number[] };
async function walLsn(): Promise<number> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  const { rows } = await c.query(`SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint AS b`);
  await c.end();
  return Number(rows[0].b);
}

/**
 * CPU spent per item, per side (µs): this process (the worker side of both queues runs here) and the PostgreSQL
 * server's processes (backends that ended are counted by the postmaster's children's times). On 2 cores the two
 * share the machine, so what a side costs in CPU bounds its rate as much as its commits do.
 */
const cpuPerItem = { stopline: { node: [] as number[], pg: [] as number[] }, graphile: { node: [] as number[], pg: [] as number[] } };
function postgresCpuMs(): number {
  let total = 0;
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (!stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).startsWith("postgres")) continue;
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      total += (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10; // utime stime cutime cstime, USER_HZ 100
    } catch {
      /* ended meanwhile */
    }
  }
  return total;
}
function cpuMeter() {
  const node0 = process.cpuUsage();
  const pg0 = postgresCpuMs();
  return (into: { node: number[]; pg: number[] }) => {
    const node = process.cpuUsage(node0);
    into.node.push((node.user + node.system) / ITEMS);
    into.pg.push(((postgresCpuMs() - pg0) * 1000) / ITEMS);
  };
}

async function dropAll() {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  for (const name of created.splice(0)) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
  await admin.end();
}

async function freshStopline(kind: "postgres" | "sqlite", label: string): Promise<{ url: string; database: Database }> {
  let url: string;
  if (kind === "postgres") url = await freshPgUrl(label);
  else {
    const dir = path.join(ROOT, "output", "bench");
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `pg-bench-${label}.db`);
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
    url = `file:${file}`;
  }
  await migrate(url);
  return { url, database: openDatabase(url) };
}

/** Tasks and queued work items, written in bulk (setup, not measured): the same rows scheduleWorkItem writes. */
async function seedItems(database: Database, tasks: number, items: number, toolName: string): Promise<string[]> {
  const taskIds: string[] = [];
  for (let t = 0; t < tasks; t++) taskIds.push((await createTask(database, { title: `bench ${t}`, ownerId: "bench" }, "bench")).id);
  const rows: unknown[][] = [];
  for (let i = 0; i < items; i++) {
    const id = randomUUID();
    rows.push([id, taskIds[i % tasks], "local_worker", toolName, id, "queued", 1, "abort_signal", `${id}:key`]);
  }
  const batch = 500;
  for (let i = 0; i < rows.length; i += batch) {
    const chunk = rows.slice(i, i + batch);
    if (database.pg) {
      const values = chunk.map((_, j) => `(${Array.from({ length: 9 }, (_, k) => `$${j * 9 + k + 1}`).join(",")}, timezone('UTC', clock_timestamp()) + make_interval(secs => ${i + j} / 1000000.0), timezone('UTC', clock_timestamp()))`).join(",");
      await database.pg.query(`INSERT INTO "WorkItem" ("id","taskId","kind","toolName","correlationId","status","preparedIntentVersion","mechanism","idempotencyKey","createdAt","updatedAt") VALUES ${values}`, chunk.flat());
      const events = chunk.map((_, j) => `($${j * 2 + 1}, $${j * 2 + 2}, 'workItem', $${j * 2 + 2}, 'bench', 'work_item.scheduled', 'queued', timezone('UTC', clock_timestamp()))`).join(",");
      await database.pg.query(`INSERT INTO "LedgerEvent" ("taskId","workItemId","entityType","entityId","actor","type","toState","createdAt") VALUES ${events}`, chunk.flatMap((r) => [r[1], r[0]]));
    } else {
      await database.sqlite!.transaction((db) => {
        const insert = db.prepare(`INSERT INTO "WorkItem" ("id","taskId","kind","toolName","correlationId","status","preparedIntentVersion","mechanism","idempotencyKey","createdAt","updatedAt") VALUES (?,?,?,?,?,?,?,?,?,?,?)`);
        const event = db.prepare(`INSERT INTO "LedgerEvent" ("taskId","workItemId","entityType","entityId","actor","type","toState","createdAt") VALUES (?,?,'workItem',?,'bench','work_item.scheduled','queued',?)`);
        chunk.forEach((r, j) => {
          const at = new Date(Date.now() + i + j).toISOString().replace("Z", "+00:00");
          insert.run(...r, at, at);
          event.run(r[1], r[0], r[0], at);
        });
      });
    }
  }
  // Autovacuum analyzes a table after its first rows within a minute; this setup writes 10,000 at once and
  // measures at once, so it analyzes itself (graphile-worker's jobs table is left to the same autovacuum).
  if (database.pg) await database.pg.query(`ANALYZE "WorkItem", "Task"`);
  return taskIds;
}

// ---- A. claim → complete -------------------------------------------------------------------------------

async function stoplineThroughput(kind: "postgres" | "sqlite", round: number): Promise<number> {
  const { database } = await freshStopline(kind, `tp${round}`);
  await seedItems(database, TASKS, ITEMS, "bench.noop");
  if (process.env.BENCH_PG_NO_LIVE !== "1") await liveLedger(database).ready; // a worker process reads what others commit (and serves SSE in an app)
  let done = 0;
  let finishedAt = 0;
  const allDone = new Promise<void>((resolve) => {
    const off = onCommitted((events) => {
      for (const e of events) if (e.type === "work_item.finished" && e.origin === "local" && ++done === ITEMS) {
        finishedAt = performance.now();
        off();
        resolve();
      }
    });
  });
  const registry = new ToolRegistry().register({ name: "bench.noop", kind: "local_worker", risk: "low", commitsEffect: false, mechanism: "abort_signal", run: async () => null });
  const wal0 = await walLsn();
  const cpu = cpuMeter();
  const started = performance.now();
  const pool = new WorkerPool({ database, registry, concurrency: WORKERS }).start();
  await allDone;
  if (kind === "postgres") {
    cpu(cpuPerItem.stopline);
    walPerItem.stopline.push(((await walLsn()) - wal0) / ITEMS);
  }
  await pool.stop();
  const completed = database.pg
    ? Number((await database.pg.query<{ n: string }>(`SELECT count(*) AS n FROM "WorkItem" WHERE "status" = 'completed'`))[0].n)
    : await database.prisma.workItem.count({ where: { status: "completed" } });
  await database.close();
  if (completed !== ITEMS) throw new Error(`expected ${ITEMS} completed items, found ${completed}`);
  return ITEMS / ((finishedAt - started) / 1000);
}

async function graphileThroughput(round: number, batched: boolean): Promise<number> {
  const connectionString = await freshPgUrl(`gw${round}${batched ? "b" : "u"}`);
  const utils = await makeWorkerUtils({ connectionString, logger: new GraphileLogger(() => () => {}) });
  await utils.migrate();
  for (let i = 0; i < ITEMS; i += 1000) {
    await utils.addJobs(Array.from({ length: Math.min(1000, ITEMS - i) }, (_, j) => ({ identifier: "noop", payload: { n: i + j } })));
  }
  await utils.release();
  let done = 0;
  let finishedAt = 0;
  let resolveDone!: () => void;
  const allDone = new Promise<void>((r) => (resolveDone = r));
  const wal0 = await walLsn();
  const cpu = cpuMeter();
  const started = performance.now();
  const runner = await runGraphile({
    connectionString,
    concurrency: WORKERS,
    noHandleSignals: true,
    pollInterval: 1_000,
    // Silent, as Stopline's worker is: its default logger writes a line per job, which would cost it CPU here.
    logger: new GraphileLogger(() => () => {}),
    taskList: {
      noop: async () => {
        if (++done === ITEMS) {
          finishedAt = performance.now();
          setImmediate(resolveDone);
        }
      },
    },
    preset: batched ? { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0, localQueue: { size: WORKERS * 10 } } } : undefined,
  });
  await allDone;
  if (!batched) cpu(cpuPerItem.graphile);
  (batched ? walPerItem.graphileBatched : walPerItem.graphile).push(((await walLsn()) - wal0) / ITEMS);
  await runner.stop();
  const check = new pg.Client({ connectionString });
  await check.connect();
  const { rows } = await check.query(`SELECT count(*)::int AS n FROM graphile_worker._private_jobs`);
  await check.end();
  if (rows[0].n !== 0) throw new Error(`graphile-worker left ${rows[0].n} jobs`);
  return ITEMS / ((finishedAt - started) / 1000);
}

// ---- B. cancel fan-out ---------------------------------------------------------------------------------

interface WorkerHandle {
  child: ChildProcess;
  aborted: Map<string, number>;
  running: () => number;
}

function startWorkerProcess(url: string, concurrency: number): WorkerHandle {
  const { NODE_CHANNEL_FD: _ipc, ...env } = process.env;
  const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "bench", "pg-worker.ts"), url, String(concurrency)], { cwd: ROOT, env: { ...env, STOPLINE_PROCESS_NAME: "bench-worker" }, stdio: ["ignore", "pipe", "inherit"] });
  const aborted = new Map<string, number>();
  let running = 0;
  createInterface({ input: child.stdout! }).on("line", (line) => {
    if (!line.startsWith("{")) return;
    const message = JSON.parse(line) as { ready?: number; aborted?: string; at?: number };
    if (message.ready !== undefined) running = Math.max(running, message.ready);
    if (message.aborted) aborted.set(message.aborted, message.at!);
  });
  return { child, aborted, running: () => running };
}

async function until(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function scheduleRaw(database: Database, taskId: string, toolName: string, n: number) {
  const ids = Array.from({ length: n }, () => randomUUID());
  for (let i = 0; i < n; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const values = chunk.map((_, j) => `($${j * 2 + 1}, $${j * 2 + 2}, 'local_worker', '${toolName}', $${j * 2 + 1}, 'queued', 1, 'abort_signal', $${j * 2 + 1} || ':key', timezone('UTC', clock_timestamp()), timezone('UTC', clock_timestamp()))`).join(",");
    await database.pg!.query(`INSERT INTO "WorkItem" ("id","taskId","kind","toolName","correlationId","status","preparedIntentVersion","mechanism","idempotencyKey","createdAt","updatedAt") VALUES ${values}`, chunk.flatMap((id) => [id, taskId]));
  }
  // Wake the worker process as scheduleWorkItem's event would (one event for the batch is enough to wake it).
  await database.pg!.query(`INSERT INTO "LedgerEvent" ("taskId","workItemId","entityType","entityId","actor","type","toState","createdAt") VALUES ($1, $2, 'workItem', $2, 'bench', 'work_item.scheduled', 'queued', timezone('UTC', clock_timestamp()))`, [taskId, ids[0]]);
  await database.pg!.query(`SELECT pg_notify('stopline_ledger', 'bench')`);
  return ids;
}

async function cancelFanOut() {
  const { url, database } = await freshStopline("postgres", "cancel");
  await liveLedger(database).ready;
  const cooperative = { name: "bench.cooperative", kind: "local_worker" as const, risk: "low" as const, commitsEffect: false, mechanism: "abort_signal" as const, run: async () => null };
  const engine = new CancellationEngine(database, { registry: new ToolRegistry().register(cooperative).register({ ...cooperative, name: "bench.queued" }), verifyDelayMs: 0, settleTimeoutMs: 10_000 }).start(60_000);
  const worker = startWorkerProcess(url, 100);
  const boundaryMs: number[] = [];
  const queuedMs: number[] = [];
  const signalMs: number[] = [];
  for (let r = 0; r < size(5, 1); r++) {
    const task = await createTask(database, { title: `fan-out ${r}`, ownerId: "bench" }, "bench");
    const before = worker.running();
    const running = await scheduleRaw(database, task.id, "bench.cooperative", 100);
    await until(() => worker.running() >= before + 100 || worker.running() >= 100, "100 children running in the worker process");
    await until(async () => Number((await database.pg!.query<{ n: string }>(`SELECT count(*) AS n FROM "WorkItem" WHERE "taskId" = $1 AND "status" = 'running'`, [task.id]))[0].n) === 100, "100 running rows");
    await scheduleRaw(database, task.id, "bench.queued", 1_000);
    let removed = 0;
    let allRemovedAt = 0;
    const off = onCommitted((events) => {
      for (const e of events) if (e.taskId === task.id && e.type === "work_item.removed_from_dispatch" && ++removed === 1_000) allRemovedAt = wallNow();
    });
    const s = wallNow();
    await requestCancellation(database, { taskId: task.id, reason: "bench", actor: "bench" });
    const committedAt = wallNow();
    boundaryMs.push(committedAt - s);
    await until(() => removed >= 1_000 && running.every((id) => worker.aborted.has(id)), "all queued cancelled and every running child signalled", 30_000);
    off();
    queuedMs.push(allRemovedAt - committedAt);
    for (const id of running) signalMs.push(worker.aborted.get(id)! - committedAt);
    log(`  B run ${r + 1}: boundary ${round(boundaryMs.at(-1)!)} ms; 1,000 queued cancelled ${round(queuedMs.at(-1)!)} ms after it; 100 children in the worker process signalled p50 ${round(percentile(signalMs.slice(-100), 50))} / p99 ${round(percentile(signalMs.slice(-100), 99))} ms`);
    await until(async () => (await database.prisma.task.findUniqueOrThrow({ where: { id: task.id } })).stage === "cancelled", "the task to settle", 30_000);
  }
  // 50 tasks stopped at once (20 queued each).
  const tasks = await Promise.all(Array.from({ length: 50 }, (_, i) => createTask(database, { title: `fifty ${i}`, ownerId: "bench" }, "bench")));
  for (const t of tasks) await scheduleRaw(database, t.id, "bench.queued", 20);
  const fifty: number[] = [];
  await Promise.all(tasks.map(async (t) => {
    const s = wallNow();
    await requestCancellation(database, { taskId: t.id, reason: "bench", actor: "bench" });
    fifty.push(wallNow() - s);
  }));
  log(`  B 50 simultaneous Stops: boundary p50 ${round(percentile(fifty, 50))} / p99 ${round(percentile(fifty, 99))} ms`);
  worker.child.kill("SIGTERM");
  await new Promise((r) => worker.child.once("exit", r));
  await engine.stop();
  await database.close();
  return { boundaryMs, queuedMs, signalMs, fifty };
}

// ---- C & D. one app process ----------------------------------------------------------------------------

function groupCpuMs(pgid: number): number {
  const tick = 100; // USER_HZ on Linux
  let total = 0;
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) !== pgid) continue; // pgrp
      total += (Number(fields[11]) + Number(fields[12])) * (1000 / tick); // utime + stime
    } catch {
      /* the process ended meanwhile */
    }
  }
  return total;
}

async function startApp(url: string, token: string): Promise<ChildProcess> {
  const next = path.join(ROOT, "node_modules", "next", "dist", "bin", "next");
  const reason = buildNeeded(ROOT);
  if (reason) {
    log(`  building the app (${reason}) …`);
    const build = spawn(process.execPath, [next, "build"], { cwd: ROOT, stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
    const code = await new Promise<number>((r) => build.once("exit", (c) => r(c ?? 1)));
    if (code !== 0) throw new Error(`next build failed (${code})`);
    writeStamp(ROOT);
  }
  // The server `npm start` runs (scripts/start/serve.ts: Next.js in-process, event streams on their own lane).
  // BENCH_PG_APP_CPU_PROF=<dir>: the app process writes a V8 CPU profile there when it ends (to see where its time goes).
  const profile = process.env.BENCH_PG_APP_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PG_APP_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...profile, "--import", "tsx", path.join(ROOT, "scripts", "start", "serve.ts")], {
    cwd: ROOT, detached: true, stdio: ["ignore", "ignore", "inherit"],
    env: {
      ...process.env, PORT: String(PORT), HOST: "127.0.0.1", NODE_ENV: "production", DATABASE_URL: url, STOPLINE_BOOTSTRAP_TOKEN: token, STOPLINE_WORKERS: "0", STOPLINE_DEMO: "0", NEXT_TELEMETRY_DISABLED: "1",
      STOPLINE_SSE_MAX_TOTAL: "5000", STOPLINE_PROCESS_NAME: "bench-app",
    },
  });
  await until(async () => {
    try {
      return (await fetch(`http://127.0.0.1:${PORT}/api/openapi.json`, { signal: AbortSignal.timeout(2_000) })).ok;
    } catch {
      return false;
    }
  }, "the app to answer", 120_000);
  return child;
}

function stopApp(child: ChildProcess) {
  try {
    process.kill(-child.pid!, "SIGTERM");
  } catch {
    /* gone */
  }
}

async function sse(database: Database, app: ChildProcess, tokens: string[], subscribers: number) {
  const aborts: AbortController[] = [];
  const received = new Map<number, number[]>(); // seq → receipt times
  let connected = 0;
  await Promise.all(Array.from({ length: subscribers }, async (_, i) => {
    const abort = new AbortController();
    aborts.push(abort);
    const res = await fetch(`http://127.0.0.1:${PORT}/api/events`, { headers: { authorization: `Bearer ${tokens[i % tokens.length]}`, accept: "text/event-stream" }, signal: abort.signal });
    if (res.status !== 200) throw new Error(`subscriber ${i}: HTTP ${res.status} ${await res.text()}`);
    connected++;
    void (async () => {
      try {
        for await (const m of readEventStream(res.body!)) {
          if (m.event !== "ledger") continue;
          const at = wallNow();
          const seq = Number(m.id);
          let list = received.get(seq);
          if (!list) received.set(seq, (list = []));
          list.push(at);
        }
      } catch {
        /* aborted at the end */
      }
    })();
  }));
  await until(() => connected === subscribers, "subscribers to connect");
  await new Promise((r) => setTimeout(r, 500));
  const committed = new Map<number, number>();
  const cpuBefore = groupCpuMs(app.pid!);
  const t0 = wallNow();
  for (let i = 0; i < 100; i++) {
    const task = await createTask(database, { title: `sse ${i}`, ownerId: "bench" }, "bench");
    const [row] = await database.pg!.query<{ seq: number }>(`SELECT "seq" FROM "LedgerEvent" WHERE "taskId" = $1`, [task.id]);
    committed.set(row.seq, wallNow());
    await new Promise((r) => setTimeout(r, 20));
  }
  await until(() => [...committed.keys()].every((seq) => (received.get(seq)?.length ?? 0) >= subscribers), `every event at all ${subscribers} subscribers`, 60_000);
  const cpuAfter = groupCpuMs(app.pid!);
  const elapsed = wallNow() - t0;
  for (const a of aborts) a.abort();
  const latencies: number[] = [];
  for (const [seq, at] of committed) for (const r of received.get(seq)!) latencies.push(r - at);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), cpuPerEventMs: (cpuAfter - cpuBefore) / 100, elapsed };
}

async function http(tokens: string[], path: (i: number) => string, body: (i: number) => string) {
  let i = 0;
  const result = await autocannon({
    url: `http://127.0.0.1:${PORT}`,
    connections: 16,
    duration: size(8, 1),
    requests: [{
      method: "POST",
      setupRequest: (req) => {
        const n = i++;
        return { ...req, path: path(n), body: body(n), headers: { "content-type": "application/json", authorization: `Bearer ${tokens[n % tokens.length]}` } };
      },
    }],
  });
  if (result.non2xx) throw new Error(`${result.non2xx} requests answered non-2xx`);
  return { rps: result.requests.mean, p99: result.latency.p99, p50: result.latency.p50 };
}

// ---- main ----------------------------------------------------------------------------------------------

if (!(await postgresAnswers())) {
  console.error(`bench:pg needs PostgreSQL: none answers at ${ADMIN_URL.replace(/:[^:@/]*@/, ":***@")} (set TEST_PG_URL, or start it: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start)`);
  process.exit(1);
}

let app: ChildProcess | null = null;
process.on("exit", () => app && stopApp(app));
try {
  const a = { stopline: [] as number[], graphile: [] as number[], graphileBatched: [] as number[], sqlite: [] as number[] };
  if (PARTS.includes("A")) {
  log(`A. claim → complete, ${ITEMS.toLocaleString("en")} no-op items over ${TASKS} tasks, ${WORKERS} workers, ${ROUNDS} alternating rounds`);
  for (let r = 0; r < ROUNDS; r++) {
    a.stopline.push(await stoplineThroughput("postgres", r));
    a.graphile.push(SIDES.includes("graphile") ? await graphileThroughput(r, false) : NaN);
    a.graphileBatched.push(SIDES.includes("batched") ? await graphileThroughput(r, true) : NaN);
    a.sqlite.push(SIDES.includes("sqlite") ? await stoplineThroughput("sqlite", r) : NaN);
    log(`  round ${r + 1}: Stopline (PostgreSQL) ${round(a.stopline[r], 0)}/s · graphile-worker ${round(a.graphile[r], 0)}/s · graphile-worker batched ${round(a.graphileBatched[r], 0)}/s · Stopline (SQLite) ${round(a.sqlite[r], 0)}/s`);
    await dropAll();
  }
  }
  const ratios = a.stopline.map((s, r) => s / a.graphile[r]);
  const ratiosBatched = a.stopline.map((s, r) => s / a.graphileBatched[r]);
  if (PARTS.includes("A")) {
    log(`  medians: Stopline ${round(median(a.stopline), 0)}/s, graphile-worker ${round(median(a.graphile), 0)}/s (ratio ${round(median(ratios))}), batched ${round(median(a.graphileBatched), 0)}/s (ratio ${round(median(ratiosBatched))}), Stopline on SQLite ${round(median(a.sqlite), 0)}/s`);
    log(`  CPU per item (median): Stopline ${round(median(cpuPerItem.stopline.node), 0)} µs in Node + ${round(median(cpuPerItem.stopline.pg), 0)} µs in PostgreSQL, graphile-worker ${round(median(cpuPerItem.graphile.node), 0)} µs + ${round(median(cpuPerItem.graphile.pg), 0)} µs`);
    log(`  WAL per item (median): Stopline ${round(median(walPerItem.stopline), 0)} B, graphile-worker ${round(median(walPerItem.graphile), 0)} B, batched ${round(median(walPerItem.graphileBatched), 0)} B`);
  }

  const b = PARTS.includes("B") ? (log("B. cancel fan-out on PostgreSQL (1,000 queued + 100 running in another process)"), await cancelFanOut()) : { boundaryMs: [], queuedMs: [], signalMs: [], fifty: [] };
  await dropAll();
  const c100 = { p50: NaN, p99: NaN, cpuPerEventMs: NaN };
  const c1000 = { ...c100 };
  const creates: { rps: number; p99: number; p50: number }[] = [];
  const cancels: { rps: number; p99: number; p50: number }[] = [];
  if (PARTS.includes("C") || PARTS.includes("D")) {

  log("C/D. one app process (npm start's server) on PostgreSQL");
  const { url, database } = await freshStopline("postgres", "app");
  // This process commits the events the app delivers, as another instance would: with its live view, which
  // tells the app's by NOTIFY (without one the app would find them only at its 1 s poll).
  await liveLedger(database).ready;
  const bootstrap = `stl_bench_${randomBytes(16).toString("hex")}`;
  const tokens: string[] = [];
  for (let i = 0; i < 100; i++) tokens.push((await createApiToken(database, { name: `bench-${i}`, role: "agent" })).token);
  app = await startApp(url, bootstrap);
  if (PARTS.includes("C")) {
    Object.assign(c100, await sse(database, app, tokens, size(100, 10)));
    log(`  C 100 subscribers: delivery p50 ${round(c100.p50)} / p99 ${round(c100.p99)} ms; app CPU ${round(c100.cpuPerEventMs)} ms per event`);
    Object.assign(c1000, await sse(database, app, tokens, size(1_000, 20)));
    log(`  C 1,000 subscribers: delivery p50 ${round(c1000.p50)} / p99 ${round(c1000.p99)} ms; app CPU ${round(c1000.cpuPerEventMs)} ms per event`);
  }
  for (let r = 0; r < (PARTS.includes("D") ? size(3, 1) : 0); r++) {
    creates.push(await http(tokens, () => "/api/tasks", (n) => JSON.stringify({ title: `http ${r}.${n}` })));
    // Each Stop on a task of its own (a repeated Stop is an idempotent no-op, cheaper than the real thing).
    const ids = (await database.pg!.query<{ id: string }>(`SELECT "id" FROM "Task" WHERE "stage" = 'active' AND "title" LIKE $1`, [`http ${r}.%`])).map((row) => row.id);
    cancels.push(await http(tokens, (n) => `/api/tasks/${ids[n % ids.length]}/cancel`, () => JSON.stringify({ reason: "bench" })));
    log(`  D round ${r + 1}: POST /api/tasks ${round(creates[r].rps, 0)}/s p50 ${creates[r].p50} / p99 ${creates[r].p99} ms · POST /api/tasks/{id}/cancel ${round(cancels[r].rps, 0)}/s p50 ${cancels[r].p50} / p99 ${cancels[r].p99} ms`);
  }
  stopApp(app);
  app = null;
  await database.close();
  }

  const figures = {
    pg_jobs_per_s: round(median(a.stopline), 0),
    graphile_jobs_per_s: round(median(a.graphile), 0),
    pg_ratio_vs_graphile: round(median(ratios)),
    graphile_batched_jobs_per_s: round(median(a.graphileBatched), 0),
    pg_ratio_vs_graphile_batched: round(median(ratiosBatched)),
    sqlite_jobs_per_s: round(median(a.sqlite), 0),
    pg_wal_bytes_per_item: round(median(walPerItem.stopline), 0),
    graphile_wal_bytes_per_item: round(median(walPerItem.graphile), 0),
    // The fan-out's Stop (the "boundary p99"), and 50 Stops at once reported on their own.
    pg_boundary_p99_ms: round(percentile(b.boundaryMs, 99)),
    pg_boundary_50_stops_p99_ms: round(percentile(b.fifty, 99)),
    pg_all_queued_cancelled_ms: round(median(b.queuedMs)),
    pg_signal_p99_ms: round(percentile(b.signalMs, 99)),
    sse_100_p99_ms: round(c100.p99),
    sse_1000_p99_ms: round(c1000.p99),
    sse_100_cpu_per_event_ms: round(c100.cpuPerEventMs),
    sse_1000_cpu_per_event_ms: round(c1000.cpuPerEventMs),
    api_create_rps: round(median(creates.map((x) => x.rps)), 0),
    api_create_p99_ms: median(creates.map((x) => x.p99)),
    api_cancel_rps: round(median(cancels.map((x) => x.rps)), 0),
    api_cancel_p99_ms: median(cancels.map((x) => x.p99)),
  };
  console.log(JSON.stringify(figures));
} finally {
  if (app) stopApp(app);
  await dropAll();
}
process.exit(0);
