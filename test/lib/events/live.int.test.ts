import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "../../../lib/auth/tokens";
import { createTask } from "../../../lib/ledger/create-task";
import { claimWorkItem } from "../../../lib/ledger/claim-work-item";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { call } from "../../support/api-client";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";
import { onCommitted, type CommittedEvent } from "../../../lib/events/bus";
import { liveLedger, LiveLedger } from "../../../lib/events/live";
import { headPosition, readEventsAfter } from "../../../lib/events/read-events";
import { readEventStream, type SseMessage } from "../../../lib/events/read-sse";
import pg from "pg";
import { captureStatement, explainPlan, nodesOf } from "../../support/explain-plan";

let t: TestDatabase;
let token: string;
beforeAll(async () => {
  t = await createTestDatabase();
  t.install();
  token = (await createApiToken(t.database, { name: "reader", role: "agent" })).token;
});
afterAll(async () => t?.drop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function collect(url: string, until: (m: SseMessage, got: SseMessage[]) => boolean, headers: Record<string, string> = {}, timeoutMs = 10_000) {
  const abort = new AbortController();
  const res = await call("GET", url, { token, headers, signal: abort.signal });
  expect(res.status).toBe(200);
  const got: SseMessage[] = [];
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    for await (const m of readEventStream(res.body!)) {
      if (m.event !== "ledger") continue;
      got.push(m);
      if (until(m, got)) break;
    }
  } catch {
    /* aborted by the timer */
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return got;
}

/** A Stop recorded by a separate OS process on the same database. */
function stopFromAnotherProcess(taskId: string) {
  const script = path.resolve(import.meta.dirname, "../../../test/support/cancel-in-process.ts");
  return new Promise<void>((resolve, reject) => {
    const { NODE_CHANNEL_FD: _ipc, ...env } = process.env;
    const child = spawn(process.execPath, ["--import", "tsx", script, t.url, taskId], { stdio: ["ignore", "inherit", "inherit"], env });
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`child exited ${code}`))));
  });
}

describe("the live view: one reader per process, fanned out", () => {
  it("a Stop recorded by another process reaches this process's bus (a running child here stops without waiting for a heartbeat)", async () => {
    await liveLedger(t.database).ready;
    const task = await createTask(t.database, { title: "remote stop", ownerId: "o" }, "agent:t");
    const seen: CommittedEvent[] = [];
    const off = onCommitted((events) => seen.push(...events.filter((e) => e.taskId === task.id)));
    try {
      const started = Date.now();
      await stopFromAnotherProcess(task.id);
      for (let i = 0; i < 200 && !seen.some((e) => e.type === "task.cancel_requested"); i++) await sleep(10);
      const remote = seen.find((e) => e.type === "task.cancel_requested");
      expect(remote, "the boundary committed by the other process").toMatchObject({ origin: "remote", taskId: task.id });
      // Within a second of the other process exiting (NOTIFY on PostgreSQL, the 200 ms poll on SQLite); a heartbeat
      // comes every 10 s by default.
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      off();
    }
  });

  it("a user's stream carries only the user's own tasks; nobody else's and no administrative event", async () => {
    const mine = await createTask(t.database, { title: "mine", ownerId: "user-1" }, "agent:t");
    await createTask(t.database, { title: "not mine", ownerId: "user-2" }, "agent:t");
    await createApiToken(t.database, { name: "an admin event", role: "agent" });
    const view = liveLedger(t.database);
    const stream = await view.subscribe({
      after: { txid: "0", seq: 0 },
      ownerId: "user-1",
      principalKey: "person:user-1",
      signal: new AbortController().signal,
    });
    const reader = stream.getReader();
    let text = "";
    const deadline = Date.now() + 3_000;
    while (!text.includes(`"taskId":"${mine.id}"`) && Date.now() < deadline) text += new TextDecoder().decode((await reader.read()).value);
    await sleep(300);
    void reader.cancel();
    const ids = [...text.matchAll(/"taskId":("[^"]+"|null)/g)].map((m) => m[1]);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.every((id) => id === `"${mine.id}"`)).toBe(true);
  });

  it("GET /api/events - over the per-principal cap: 429 with Retry-After and a sentence; the streams already open keep working", async () => {
    process.env.STOPLINE_SSE_MAX_PER_PRINCIPAL = "2";
    const aborts: AbortController[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const abort = new AbortController();
        aborts.push(abort);
        expect((await call("GET", "/api/events", { token, signal: abort.signal })).status).toBe(200);
      }
      const refused = await call("GET", "/api/events", { token });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await refused.json()).error.message).toMatch(/already have 2 open event streams/);
      // another principal is not affected
      const other = (await createApiToken(t.database, { name: "other reader", role: "agent" })).token;
      const abort = new AbortController();
      aborts.push(abort);
      expect((await call("GET", "/api/events", { token: other, signal: abort.signal })).status).toBe(200);
    } finally {
      delete process.env.STOPLINE_SSE_MAX_PER_PRINCIPAL;
      for (const a of aborts) a.abort();
    }
    await sleep(50);
    // closed streams free their places
    const again = new AbortController();
    expect((await call("GET", "/api/events", { token, signal: again.signal })).status).toBe(200);
    again.abort();
  });

  it("Last-Event-ID that is no event of this ledger is a 400 naming the header", async () => {
    const res = await call("GET", "/api/events", { token, headers: { "last-event-id": "99999999" } });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ details: { field: "Last-Event-ID" } });
  });
});

describe.skipIf(testEngine() !== "postgres")("PostgreSQL: event order without a global lock", () => {
  it("a process that serves no stream reads only what its bus needs; once a stream attaches it reads events whole and the stream gets them whole", async () => {
    // This process's other live view (the one the routes use) serves no stream either: every read below is a
    // process without a stream reading, until the stream attaches to this one.
    expect(liveLedger(t.database).subscriberCount).toBe(0);
    const view = new LiveLedger(t.database, { pollMs: 60_000 });
    await view.ready;
    const pg = t.database.pg!;
    const original = pg.query;
    const reads: string[] = [];
    (pg as { query: typeof original }).query = ((sql: string, params?: unknown[], name?: string) => {
      if (sql.includes('FROM "LedgerEvent" e')) reads.push(sql.includes('LEFT JOIN "Task"') ? "whole" : "headers");
      return original.call(pg, sql, params, name);
    }) as typeof original;
    const frames: string[] = [];
    const abort = new AbortController();
    try {
      const seen: CommittedEvent[] = [];
      const off = onCommitted((events) => seen.push(...events.filter((e) => e.origin === "remote")));
      try {
        const task = (await createTask(t.database, { title: "stopped elsewhere", ownerId: "o" }, "agent:t")).id;
        await stopFromAnotherProcess(task);
        view.wake();
        for (let i = 0; i < 200 && !seen.some((e) => e.taskId === task && e.type === "task.cancel_requested"); i++) await sleep(10);
        expect(seen.some((e) => e.taskId === task && e.type === "task.cancel_requested")).toBe(true);
      } finally {
        off();
      }
      expect(reads.length).toBeGreaterThan(0);
      expect(new Set(reads)).toEqual(new Set(["headers"]));
      reads.length = 0;
      const decoder = new TextDecoder();
      view.attach(
        { after: "now", principalKey: "headers-test", signal: abort.signal },
        { write: (f) => frames.push(decoder.decode(f)), backlog: () => 0, end: () => {} },
      );
      await createTask(t.database, { title: "whole once a stream listens", ownerId: "o" }, "agent:t");
      for (let i = 0; i < 200 && !frames.some((f) => f.includes("whole once a stream listens")); i++) await sleep(10);
      expect(frames.some((f) => f.includes('"title":"whole once a stream listens"'))).toBe(true);
      expect(reads).toContain("whole");
    } finally {
      (pg as { query: typeof original }).query = original;
      abort.abort();
      await view.stop();
    }
  });

  it("an event whose transaction commits after a younger one is delivered in (transaction, seq) order, never skipped; the younger one waits until then", async () => {
    const task = await createTask(t.database, { title: "out of order", ownerId: "o" }, "agent:t");
    const from = await headPosition(t.database);
    const pool = t.database.pg!.pool;
    const older = await pool.connect();
    try {
      // The older transaction takes its id first; the younger one writes and commits its event; only then does the
      // older one write its own — with the larger seq — and it is still open.
      await older.query("BEGIN");
      await older.query(`SELECT pg_current_xact_id()`);
      await scheduleWorkItem(t.database, { taskId: task.id, kind: "local_worker", toolName: "x", mechanism: "abort_signal", intentVersion: 1 }, "agent:test"); // commits
      const [younger] = await t.database.prisma.ledgerEvent.findMany({ where: { taskId: task.id, type: "work_item.scheduled" } });
      await older.query(
        `INSERT INTO "LedgerEvent" ("taskId","entityType","entityId","actor","type","createdAt") VALUES ($1,'task',$1,'test','test.older',timezone('UTC', clock_timestamp()))`,
        [task.id],
      );

      const whileOpen = await readEventsAfter(t.database, from, { taskId: task.id });
      expect(whileOpen.events.map((e) => e.event.type)).toEqual([]); // the younger event waits: an older transaction may still add before it
      expect(whileOpen.held).toBe(true);

      // A subscriber connected now sees nothing yet, then both in order once the older transaction commits.
      const pending = collect(`/api/tasks/${task.id}/events?lastEventId=${from.seq}`, (_m, got) => got.length >= 2);
      await sleep(300);
      await older.query("COMMIT");
      const got = await pending;
      expect(got.map((m) => JSON.parse(m.data).type)).toEqual(["test.older", "work_item.scheduled"]);
      const olderSeq = Number(got[0].id);
      expect(olderSeq).toBeGreaterThan(younger.seq); // in seq order it would have come second — and been skipped by a seq cursor

      // Resuming after the older event (a larger seq, delivered first) still yields the younger one, once.
      const resumed = await collect(`/api/tasks/${task.id}/events`, (_m, all) => all.length >= 1, { "last-event-id": String(olderSeq) }, 1_500);
      expect(resumed.map((m) => Number(m.id))).toEqual([younger.seq]);
    } finally {
      await older.query("ROLLBACK").catch(() => {});
      older.release();
    }
  });

  it("a transaction open on another database of the server holds nothing back; one of this ledger's younger than every new event is not looked up among the server's sessions", async () => {
    const task = await createTask(t.database, { title: "watermark", ownerId: "o" }, "agent:t");
    const from = await headPosition(t.database);
    // Another database's transaction takes its id before this ledger's next event: below that event, in the snapshot's
    // in-progress list — and not this ledger's, so the event is delivered at once.
    const elsewhere = new pg.Client({ connectionString: process.env.TEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres" });
    await elsewhere.connect();
    const here = await t.database.pg!.pool.connect();
    try {
      await elsewhere.query("BEGIN");
      await elsewhere.query("SELECT pg_current_xact_id()");
      await scheduleWorkItem(t.database, { taskId: task.id, kind: "local_worker", toolName: "x", mechanism: "abort_signal", intentVersion: 1 }, "agent:t");
      const read = await readEventsAfter(t.database, from, { taskId: task.id });
      expect(read.events.map((e) => e.event.type)).toEqual(["work_item.scheduled"]);
      expect(read.held).toBe(false);

      // A transaction of this ledger that took its id after every event this read finds (the task's): it cannot hold
      // any of them back, and the read does not look at the server's sessions (pg_stat_activity, ~0.3 ms) to find out
      // whose it is. (A later commit puts it in the snapshot's in-progress list, which ends at the newest completed id.)
      await elsewhere.query("COMMIT");
      await here.query("BEGIN");
      await here.query("SELECT pg_current_xact_id()");
      await createTask(t.database, { title: "later, another task", ownerId: "o" }, "agent:t"); // so the open one is in the snapshot's in-progress list
      const sent = captureStatement(t.database.pg!, (_name, sql) => sql.includes("pg_current_snapshot()"));
      const reading = readEventsAfter(t.database, from, { taskId: task.id });
      const { sql, params, release } = await sent;
      const plan = await explainPlan(t.database.pg!, sql, params, { generic: false });
      release();
      expect((await reading).events.map((e) => e.event.type)).toEqual(["work_item.scheduled"]);
      const sessions = nodesOf(plan).filter((n) => n["Function Name"] === "pg_stat_get_activity");
      expect(sessions.length).toBe(1);
      expect(sessions[0]["Actual Loops"]).toBe(0); // never executed
    } finally {
      await elsewhere.query("ROLLBACK").catch(() => {});
      await elsewhere.end();
      await here.query("ROLLBACK").catch(() => {});
      here.release();
    }
  });

  it("the live view: another database's transaction begun after the view looked at the server's sessions holds its events back only briefly", async () => {
    const view = new LiveLedger(t.database, { pollMs: 50 });
    await view.ready;
    const task = await createTask(t.database, { title: "held by another database", ownerId: "o" }, "agent:t");
    const elsewhere = new pg.Client({ connectionString: process.env.TEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres" });
    await elsewhere.connect();
    const seen: CommittedEvent[] = [];
    const off = onCommitted((events) => seen.push(...events.filter((e) => e.taskId === task.id && e.origin === "remote")));
    try {
      await sleep(100); // the view has read (and looked at the sessions) by now
      await elsewhere.query("BEGIN");
      await elsewhere.query("SELECT pg_current_xact_id()");
      // An event committed by "another process" (not announced here), after the other database's transaction began.
      const [{ seq }] = await t.database.pg!.query<{ seq: number }>(
        `INSERT INTO "LedgerEvent" ("taskId","entityType","entityId","actor","type","createdAt") VALUES ($1,'task',$1,'test','test.elsewhere',timezone('UTC', clock_timestamp())) RETURNING "seq"`,
        [task.id],
      );
      const started = Date.now();
      for (let i = 0; i < 200 && !seen.some((e) => e.seq === seq); i++) await sleep(10);
      expect(seen.map((e) => e.seq)).toContain(seq);
      expect(Date.now() - started).toBeLessThan(1_000); // the lookup after 20 ms held, not the other transaction's end
    } finally {
      off();
      await elsewhere.query("ROLLBACK").catch(() => {});
      await elsewhere.end();
      await view.stop();
    }
  });

  it("a claim racing with the boundary: either it committed before the boundary (and the engine stops it) or it is refused — never claimed after", async () => {
    for (let round = 0; round < 20; round++) {
      const task = await createTask(t.database, { title: `race ${round}`, ownerId: "o" }, "agent:t");
      await scheduleWorkItem(
        t.database,
        { taskId: task.id, kind: "local_worker", toolName: "race.tool", mechanism: "abort_signal", intentVersion: 1 },
        "agent:t",
      );
      const [claimed] = await Promise.all([
        claimWorkItem(t.database, { workerId: "racer", toolNames: ["race.tool"] }),
        t.database
          .pg!.query(`SELECT pg_sleep(0.001)`)
          .then(() =>
            import("../../../lib/cancellation/steps/1-record-boundary").then(({ requestCancellation }) =>
              requestCancellation(t.database, { taskId: task.id, reason: "race", actor: "agent:t" }),
            ),
          ),
      ]);
      const row = await t.database.prisma.task.findUniqueOrThrow({ where: { id: task.id } });
      if (claimed) {
        const item = await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: claimed.id } });
        expect(item.startedAt!.getTime()).toBeLessThanOrEqual(row.cancelRequestedAt!.getTime());
      }
      // after the boundary nothing can be claimed
      expect(await claimWorkItem(t.database, { workerId: "late", toolNames: ["race.tool"] })).toBeNull();
    }
  });
});
