import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "../../../lib/auth/tokens";
import { call, json } from "../../support/api-client";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";
import { writeLedger } from "../../../lib/ledger/write";
import { openDatabase, type Database } from "../../../lib/db/client";

/**
 * Issue 11 (2): a worker process stopped (SIGSTOP) inside a ledger write transaction must not be able to hold
 * the server hostage. Before: on SQLite every request of the server hung (better-sqlite3 waited 15 s per
 * statement on the event loop, then Prisma's adapter leaked its mutex on the failed BEGIN and nothing ever ran
 * again, even after the worker was killed); on PostgreSQL whatever needs the frozen session's locks waits
 * without end (once the ledger's global advisory lock: every write).
 *
 * The exact sequence, with real processes: a worker process opens the ledger and enters a write transaction
 * (test/support/frozen-writer.ts), the test SIGSTOPs it there, the server (this process: the real route
 * handlers on a database opened with short bounds) keeps answering — reads normally, writes with a 503 that
 * says why, each within its bound, without stalling its event loop — and once the worker is killed, the next
 * write succeeds at once. Nothing the frozen worker had written inside its transaction survives.
 */
const engine = testEngine();
const LOCK_WAIT_MS = 1_000;
let t: TestDatabase;
let server: Database;
let agent = "";
let worker: ChildProcess | undefined;

beforeAll(async () => {
  t = await createTestDatabase();
  // The server's own connection, with short bounds so the test is quick (defaults: 5 s lock wait on SQLite,
  // 5 s lock_timeout on PostgreSQL).
  server = openDatabase(t.url, { sqlite: { lockWaitMs: LOCK_WAIT_MS, transactionMaxMs: 3_000 }, postgres: { lockTimeoutMs: LOCK_WAIT_MS } });
  process.env.DATABASE_URL = t.url;
  (globalThis as unknown as { stoplineDb?: Database }).stoplineDb = server;
  agent = (await createApiToken(server, { name: "agent-f", role: "agent" })).token;
});
afterEach(() => {
  worker?.kill("SIGKILL");
  worker = undefined;
});
afterAll(async () => {
  await server?.close();
  await t?.drop();
});

/** Starts the worker process and waits until it is inside its write transaction. */
async function workerInsideWriteTransaction(taskId: string, env: Record<string, string> = {}) {
  const { NODE_CHANNEL_FD: _ipc, ...parentEnv } = process.env; // see test/lib/db/database.int.test.ts
  const child = spawn(process.execPath, ["--import", "tsx", path.resolve(import.meta.dirname, "../../../test/support/frozen-writer.ts"), t.url, taskId], {
    env: { ...parentEnv, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  worker = child;
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d) => {
      out += d;
      if (out.includes('"in-transaction"')) resolve();
    });
    child.once("exit", (code) => reject(new Error(`the worker exited (${code}) before entering its transaction: ${out}`)));
  });
  return child;
}

/** The largest delay of a 20 ms timer while `during` runs: how long the server's event loop was blocked. */
async function eventLoopStall<T>(during: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  let stallMs = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last - 20);
    last = now;
  }, 20);
  try {
    return { result: await during(), stallMs };
  } finally {
    clearInterval(timer);
  }
}

const timed = async (request: () => Promise<Response>) => {
  const started = performance.now();
  const response = await request();
  return {
    response,
    ms: performance.now() - started,
    body: await response
      .clone()
      .json()
      .catch(() => null),
  };
};

const newTask = async (title: string) => call("POST", "/api/tasks", { token: agent, body: { title } });

describe(`a worker process frozen inside a write transaction (${engine})`, () => {
  it("SIGSTOP mid-write-transaction: the server keeps reading, answers writes 503 with Retry-After within the bound, its event loop never stalls, and recovers the moment the worker is killed", async () => {
    const task = await json(await newTask("before the freeze"));
    const child = await workerInsideWriteTransaction(task.id);
    child.kill("SIGSTOP");
    const tasksBefore = await server.prisma.task.count();

    const { result, stallMs } = await eventLoopStall(async () => {
      // Several writes at once (they would queue behind each other), and reads among them.
      const writes = Array.from({ length: 6 }, (_, i) => timed(() => newTask(`during the freeze ${i}`)));
      const stop = timed(() => call("POST", `/api/tasks/${task.id}/cancel`, { token: agent, body: { reason: "during the freeze" } }));
      const read = timed(() => call("GET", `/api/tasks/${task.id}`, { token: agent }));
      return { writes: await Promise.all([...writes, stop]), read: await read };
    });

    expect(result.read.response.status, "reads go on while the write lock is held elsewhere").toBe(200);
    expect(result.read.ms, "a read does not wait for the write lock").toBeLessThan(LOCK_WAIT_MS * 1.5);
    // SQLite has one write lock: every write waits for it, and is refused at the bound. PostgreSQL locks rows:
    // only what needs the frozen worker's row (the Stop of its task) waits, and is refused at the bound.
    const blocked = engine === "sqlite" ? result.writes : result.writes.slice(-1);
    for (const w of blocked) {
      expect(w.response.status, JSON.stringify(w.body)).toBe(503);
      expect(w.response.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(w.body.error.code).toBe("unavailable");
      expect(w.body.error.message).toMatch(/database is not available right now: .*(frozen|stuck)/);
      expect(w.ms, "each write is answered within its bound, not after the others").toBeLessThan(LOCK_WAIT_MS * 3 + 1_500);
    }
    if (engine === "postgres") for (const w of result.writes.slice(0, -1)) expect(w.response.status, "other work goes on").toBe(201);
    // (before: 15 s per statement; the bound leaves room for a loaded CI machine)
    expect(stallMs, "the server's event loop kept running while it waited").toBeLessThan(1_000);
    expect(await server.prisma.task.count(), "a refused write wrote nothing").toBe(tasksBefore + (engine === "sqlite" ? 0 : result.writes.length - 1));
    expect((await server.prisma.task.findUniqueOrThrow({ where: { id: task.id } })).stage, "the Stop answered 503 and was not recorded").toBe("active");

    // The worker is killed (still frozen): its locks go with it, and the very next write succeeds.
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    const after = await timed(() => newTask("after the kill"));
    expect(after.response.status).toBe(201);
    expect(after.ms).toBeLessThan(1_500);
    const stop = await call("POST", `/api/tasks/${task.id}/cancel`, { token: agent, body: { reason: "after the kill" } });
    expect(stop.status).toBe(202);
    // Its transaction never committed: the event it wrote inside it does not exist.
    expect(await server.prisma.ledgerEvent.count({ where: { type: "ledger.probe", reason: { startsWith: "frozen" } } })).toBe(0);
  }, 60_000);

  it.runIf(engine === "postgres")(
    "PostgreSQL ends the frozen worker's session by itself (idle_in_transaction_session_timeout): the Stop it blocked succeeds while the worker is still stopped",
    async () => {
      const task = await json(await newTask("frozen, not killed"));
      const child = await workerInsideWriteTransaction(task.id, { STOPLINE_PG_IDLE_IN_TRANSACTION_MS: "1500" });
      child.kill("SIGSTOP");
      const deadline = Date.now() + 15_000;
      let status = 0;
      while (Date.now() < deadline && status !== 202) {
        status = (await call("POST", `/api/tasks/${task.id}/cancel`, { token: agent, body: { reason: "while the worker is still stopped" } })).status;
        if (status !== 202) await new Promise((r) => setTimeout(r, 200));
      }
      expect(status).toBe(202);
      expect(child.exitCode, "the worker is still there, stopped").toBeNull();
      expect(await server.prisma.ledgerEvent.count({ where: { type: "ledger.probe", reason: { startsWith: "frozen" } } })).toBe(0);
    },
    30_000,
  );

  it.runIf(engine === "sqlite")(
    "a transaction nobody finishes is rolled back at its time bound: nothing it wrote commits, a late write is refused, the connection serves the next request",
    async () => {
      const bounded = openDatabase(t.url, { sqlite: { transactionMaxMs: 300 } });
      try {
        const task = await json(await newTask("time bound"));
        const slow = writeLedger(bounded, async (w) => {
          await w.event({ taskId: task.id, entityType: "task", entityId: task.id, actor: "test", type: "ledger.probe", reason: "slow_probe" });
          await new Promise((r) => setTimeout(r, 700)); // past the bound
          await w.event({ taskId: task.id, entityType: "task", entityId: task.id, actor: "test", type: "ledger.probe", reason: "slow_probe" });
        });
        await expect(slow).rejects.toMatchObject({ code: "unavailable", message: expect.stringMatching(/rolled back after 300 ms/) });
        expect(await bounded.prisma.ledgerEvent.count({ where: { type: "ledger.probe", reason: "slow_probe" } })).toBe(0);
        // The same connection goes on serving.
        await writeLedger(bounded, (w) =>
          w.event({ taskId: task.id, entityType: "task", entityId: task.id, actor: "test", type: "ledger.probe", reason: "after_bound" }),
        );
        expect(await bounded.prisma.ledgerEvent.count({ where: { type: "ledger.probe", reason: "after_bound" } })).toBe(1);
      } finally {
        await bounded.close();
      }
    },
  );

  it.runIf(engine === "sqlite")(
    "a transaction is bounded in work too: past its statement limit it is refused and rolled back, nothing of it commits",
    async () => {
      const bounded = openDatabase(t.url, { sqlite: { transactionMaxStatements: 20 } });
      try {
        const task = await json(await newTask("work bound"));
        const busy = writeLedger(bounded, async (w) => {
          for (let i = 0; i < 30; i++)
            await w.event({ taskId: task.id, entityType: "task", entityId: task.id, actor: "test", type: "ledger.probe", reason: "busy_probe" });
        });
        await expect(busy).rejects.toMatchObject({ code: "unavailable", message: expect.stringMatching(/more than 20 statements/) });
        expect(await bounded.prisma.ledgerEvent.count({ where: { type: "ledger.probe", reason: "busy_probe" } })).toBe(0);
        await writeLedger(bounded, (w) =>
          w.event({ taskId: task.id, entityType: "task", entityId: task.id, actor: "test", type: "ledger.probe", reason: "after_work_bound" }),
        );
        expect(await bounded.prisma.ledgerEvent.count({ where: { type: "ledger.probe", reason: "after_work_bound" } })).toBe(1);
      } finally {
        await bounded.close();
      }
    },
  );
});
