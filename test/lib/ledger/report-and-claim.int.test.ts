import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkItem } from "../../../lib/db/generated/sqlite/client.ts";
import { AppError } from "../../../lib/errors";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";
import { claimWorkItem } from "../../../lib/ledger/claim-work-item";
import { createTask } from "../../../lib/ledger/create-task";
import { recoverExpiredLeases } from "../../../lib/ledger/recover-expired-leases";
import { LedgerEvent } from "../../../lib/ledger/events";
import { ReportAndClaimQueue } from "../../../lib/ledger/report-and-claim";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { captureStatement, explainPlan, recordStatements, rereadCtes, rowsRead, scansOf } from "../../support/explain-plan";
import { loadHistory } from "../../../bench/pg-history";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => t?.drop());

const actor = "agent:test";
const schedule = (taskId: string, toolName: string) =>
  scheduleWorkItem(t.database, { taskId, kind: "local_worker", toolName, mechanism: "abort_signal", intentVersion: 1 }, actor);
const eventsOf = (workItemId: string) => t.database.prisma.ledgerEvent.findMany({ where: { workItemId }, orderBy: { seq: "asc" } });
const statusOf = async (id: string) => (await t.database.prisma.workItem.findUniqueOrThrow({ where: { id } })).status;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The next report statements fail with these errors before reaching the server (PostgreSQL only), then pass. */
function failStatements(errors: { code: string; message: string }[]): { sent: () => number; stop: () => void } {
  const pg = t.database.pg!;
  const original = pg.query;
  let n = 0;
  (pg as { query: typeof original }).query = ((sql: string, params?: unknown[], name?: string) => {
    if (!name?.startsWith("stopline_reports_and_claims")) return original.call(pg, sql, params, name);
    const error = errors[n++];
    return error ? Promise.reject(Object.assign(new Error(error.message), { code: error.code })) : original.call(pg, sql, params, name);
  }) as typeof original;
  return { sent: () => n, stop: () => ((pg as { query: typeof original }).query = original) };
}

describe("a worker pool's reports and claims, in shared statements", () => {
  it("eight slots report at once and each claims its next item: every change is recorded with its own event, and on PostgreSQL they share one statement", async () => {
    const task = await createTask(t.database, { title: "sixteen counts", ownerId: "alice" }, actor);
    const tool = "tool.batch";
    for (let i = 0; i < 16; i++) await schedule(task.id, tool);
    const queue = new ReportAndClaimQueue(t.database, () => ({ workerId: "pool-a", toolNames: [tool], leaseMs: 30_000 }));
    const first = await Promise.all(Array.from({ length: 8 }, () => queue.claim()));
    expect(first.every((i) => i !== null)).toBe(true);
    expect(new Set(first.map((i) => i!.id)).size).toBe(8);

    const statements = recordStatements(t.database.pg);
    const next: WorkItem[] = [];
    const reported = await Promise.all(
      first.map((item) =>
        queue.report({ workItemId: item!.id, leaseToken: item!.leaseToken!, outcome: "completed", result: { n: 1 }, actor: "worker:pool-a" }, (claimed) =>
          next.push(claimed),
        ),
      ),
    );
    statements.stop();
    if (t.database.pg) expect(statements.names.filter((name) => name.startsWith("stopline_reports_and_claims"))).toHaveLength(1);

    expect(reported.map((r) => r.status)).toEqual(Array(8).fill("completed"));
    for (const item of first) {
      expect(await statusOf(item!.id)).toBe("completed");
      expect((await eventsOf(item!.id)).map((e) => e.type)).toEqual(["work_item.scheduled", "work_item.claimed", "work_item.finished"]);
    }
    // On SQLite each report is its own transaction and the slot claims as before: the next items come from claims.
    while (next.length < 8) {
      const item = await queue.claim();
      if (!item) break;
      next.push(item);
    }
    expect(new Set(next.map((i) => i.id)).size).toBe(8);
    expect(next.every((i) => !first.some((f) => f!.id === i.id))).toBe(true);
    for (const item of next) {
      expect(await statusOf(item.id)).toBe("running");
      expect(new Set(next.map((i) => i.leaseToken)).size).toBe(8); // each its own fencing token
      expect((await eventsOf(item.id)).filter((e) => e.type === "work_item.claimed")).toHaveLength(1);
    }
  });

  it("a stale report among others: the others apply, the stale one is refused with the reason and its attempt is recorded", async () => {
    const task = await createTask(t.database, { title: "three counts", ownerId: "alice" }, actor);
    const tool = "tool.stale";
    for (let i = 0; i < 3; i++) await schedule(task.id, tool);
    const queue = new ReportAndClaimQueue(t.database, () => ({ workerId: "pool-b", toolNames: [tool], leaseMs: 30_000 }));
    const items = (await Promise.all([queue.claim(), queue.claim(), queue.claim()])) as WorkItem[];
    const results = await Promise.allSettled(
      items.map((item, i) =>
        queue.report({ workItemId: item.id, leaseToken: i === 1 ? "not-the-token" : item.leaseToken!, outcome: "completed", actor: "worker:pool-b" }),
      ),
    );
    expect(results[0].status).toBe("fulfilled");
    expect(results[2].status).toBe("fulfilled");
    expect(results[1].status).toBe("rejected");
    const error = (results[1] as PromiseRejectedResult).reason;
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("stale_lease");
    expect(await statusOf(items[1].id)).toBe("running");
    expect((await eventsOf(items[1].id)).map((e) => e.type)).toContain("lease.stale_token_rejected");
  });

  // PostgreSQL aborts one statement of a lock cycle (a worker's report statement locks its rows in no fixed order): the
  // reports it carried must not be lost — nothing of it committed, so it is sent again. Another error is not retried.
  it.runIf(!!process.env.TEST_PG_URL && testEngine() === "postgres")(
    "a report statement chosen as a deadlock victim is sent again: every report applies once; any other failure is not retried",
    async () => {
      const task = await createTask(t.database, { title: "a deadlock", ownerId: "alice" }, actor);
      const tool = "tool.deadlock";
      for (let i = 0; i < 3; i++) await schedule(task.id, tool);
      const queue = new ReportAndClaimQueue(t.database, () => ({ workerId: "pool-d", toolNames: [tool], leaseMs: 30_000 }));
      const items = (await Promise.all([queue.claim(), queue.claim()])) as WorkItem[];
      const failing = failStatements([{ code: "40P01", message: "deadlock detected" }]);
      const reported = await Promise.all(
        items.map((item) => queue.report({ workItemId: item.id, leaseToken: item.leaseToken!, outcome: "completed", actor: "worker:pool-d" })),
      );
      failing.stop();
      expect(failing.sent()).toBe(2); // the aborted statement, then the same again
      expect(reported.map((r) => r.status)).toEqual(["completed", "completed"]);
      for (const item of items) expect((await eventsOf(item.id)).filter((e) => e.type === "work_item.finished")).toHaveLength(1);

      const [last] = (await Promise.all([queue.claim()])) as WorkItem[];
      const refusing = failStatements([{ code: "23505", message: "duplicate key value violates unique constraint" }]);
      await expect(queue.report({ workItemId: last.id, leaseToken: last.leaseToken!, outcome: "completed", actor: "worker:pool-d" })).rejects.toMatchObject({
        code: "23505",
      });
      refusing.stop();
      expect(refusing.sent()).toBe(1);
      expect(await statusOf(last.id)).toBe("running");
    },
  );

  it("an item put back in the queue behind where the claims have got to is claimed soon, while newer items still wait (no item starves)", async () => {
    const task = await createTask(t.database, { title: "a lease that expires", ownerId: "alice" }, actor);
    const tool = "tool.requeue";
    const early = await schedule(task.id, tool);
    // Claimed with a short lease that expires without a report: recovery puts it back, with its old creation time.
    const lost = await claimWorkItem(t.database, { workerId: "gone", toolNames: [tool], leaseMs: 50 });
    expect(lost!.id).toBe(early.id);
    for (let i = 0; i < 40; i++) await schedule(task.id, tool);
    const queue = new ReportAndClaimQueue(t.database, () => ({ workerId: "pool-c", toolNames: [tool], leaseMs: 30_000 }));
    const later = (await Promise.all([queue.claim(), queue.claim(), queue.claim()])) as WorkItem[];
    expect(later.map((i) => i.id)).not.toContain(early.id);
    await sleep(100);
    await recoverExpiredLeases(t.database);
    expect(await statusOf(early.id)).toBe("queued");
    const seen: string[] = [];
    const deadline = Date.now() + 5_000;
    while (!seen.includes(early.id) && Date.now() < deadline) {
      const item = await queue.claim();
      if (item) seen.push(item.id);
      await sleep(25); // slots that take a while: the queue is far from drained when the item must come up
    }
    expect(seen).toContain(early.id);
    expect(seen.length).toBeLessThan(30); // found by a scan from the start, not only once the newer items ran out
    expect(await statusOf(early.id)).toBe("running");
  });
});

/** The types of the report-and-claim statement's parameters, in order (sql/report-and-claim.ts). */
const CLAIM_PARAM_TYPES = [
  ...["text[]", "text[]", "text[]", "boolean[]", "text[]", "text[]", "text[]", "boolean[]", "text[]", "text[]", "text[]", "text[]", "text[]"],
  ...["text", "double precision", "text[]", "text", "timestamp", "text"],
];

/** The next claim statement the hot path sends (PostgreSQL only), held until `release`. */
const captureClaimStatement = () =>
  captureStatement(t.database.pg!, (name) => name.startsWith("stopline_reports_and_claims") && !name.startsWith("stopline_reports_and_claims_0_"));

describe("a claim reads only the queues of the tools its worker serves", () => {
  it("claims come oldest first across the tools named, never of another tool; a claim of any tool takes the oldest of all", async () => {
    const task = await createTask(t.database, { title: "three tools", ownerId: "alice" }, actor);
    const order: [string, string][] = [];
    for (const tool of ["tool3.c", "tool3.a", "tool3.b", "tool3.c", "tool3.b", "tool3.a"]) {
      order.push([(await schedule(task.id, tool)).id, tool]);
      await sleep(3); // distinct creation times (the order does not rest on ids)
    }
    const servedIds = order.filter(([, tool]) => tool !== "tool3.c").map(([id]) => id);
    const claimed: string[] = [];
    for (;;) {
      const item = await claimWorkItem(t.database, { workerId: "ab", toolNames: ["tool3.a", "tool3.b", "tool3.a"], leaseMs: 30_000 });
      if (!item) break;
      claimed.push(item.id);
    }
    expect(claimed).toEqual(servedIds);
    expect(await claimWorkItem(t.database, { workerId: "none", toolNames: [], leaseMs: 30_000 })).toBeNull();
    for (const [id] of order.filter(([, tool]) => tool === "tool3.c")) expect(await statusOf(id)).toBe("queued");
    const oldest = await t.database.prisma.workItem.findFirstOrThrow({ where: { status: "queued" }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
    const any = await claimWorkItem(t.database, { workerId: "any", leaseMs: 30_000 });
    expect(any?.id).toBe(oldest.id); // the oldest queued item of any tool
  });

  it("a pool serving two tools claims a batch in one statement, oldest first across both, the other tool's items untouched", async () => {
    const task = await createTask(t.database, { title: "two tools, a batch", ownerId: "alice" }, actor);
    const ids: Record<string, string[]> = { "tool4.a": [], "tool4.b": [], "tool4.idle": [] };
    for (let i = 0; i < 12; i++) {
      const tool = ["tool4.idle", "tool4.a", "tool4.b"][i % 3];
      ids[tool].push((await schedule(task.id, tool)).id);
      await sleep(2);
    }
    const queue = new ReportAndClaimQueue(t.database, () => ({ workerId: "pool-ab", toolNames: ["tool4.a", "tool4.b"], leaseMs: 30_000 }));
    const got = (await Promise.all(Array.from({ length: 5 }, () => queue.claim()))) as WorkItem[];
    const served = [...ids["tool4.a"], ...ids["tool4.b"]];
    expect(got.every((item) => item && served.includes(item.id))).toBe(true);
    // The five oldest of the served tools' eight (creation order: a1 b1 a2 b2 a3 …).
    const oldestFive = [ids["tool4.a"][0], ids["tool4.b"][0], ids["tool4.a"][1], ids["tool4.b"][1], ids["tool4.a"][2]];
    expect(new Set(got.map((i) => i.id))).toEqual(new Set(oldestFive));
    for (const id of ids["tool4.idle"]) expect(await statusOf(id)).toBe("queued");
    for (const item of got) expect((await eventsOf(item.id)).map((e) => e.type)).toContain(LedgerEvent.workItemClaimed);
  });

  it.skipIf(testEngine() !== "postgres")(
    "queued items of a tool nobody serves cost a claim of another tool nothing: the claim's plan reads none of them",
    async () => {
      const task = await createTask(t.database, { title: "a tool nobody serves", ownerId: "alice" }, actor);
      // Older than the served items, so a scan of the queue in creation order alone would walk through all of them.
      await Promise.all(Array.from({ length: 400 }, () => schedule(task.id, "tool5.unserved")));
      await sleep(5);
      // More of the served tool than a claim takes: a scan in order stops at the claim's count, a sort reads them all.
      for (let i = 0; i < 60; i++) await schedule(task.id, "tool5.served");
      await t.database.pg!.query("ANALYZE"); // planned with statistics, as a running database is
      for (const toolNames of [["tool5.served"], ["tool5.served", "tool5.also"]]) {
        const queue = new ReportAndClaimQueue(t.database, () => ({ workerId: "pool-served", toolNames, leaseMs: 30_000 }));
        const statement = captureClaimStatement();
        const claims = Promise.all([queue.claim(), queue.claim(), queue.claim()]);
        const { sql, params, release } = await statement;
        // The same statement, planned as the pool's connections plan it after a few runs (generic) and run in a
        // transaction that is rolled back; then the pool's own statement goes out.
        const plan = await explainPlan(t.database.pg!, sql, params, { generic: true, types: CLAIM_PARAM_TYPES });
        release();
        const workItemScans = scansOf(plan, "WorkItem");
        const queueScans = workItemScans.filter((n) => n["Index Name"] === "WorkItem_queued_idx");
        expect(queueScans.length).toBe(toolNames.length); // one per tool served, each within its tool
        for (const scan of queueScans) expect(String(scan["Index Cond"])).toContain('"toolName" =');
        // The served tool's oldest 3, read in order: neither the 400 others nor the rest of its own queue.
        expect(queueScans.reduce((sum, n) => sum + rowsRead(n), 0)).toBeLessThanOrEqual(3);
        for (const scan of queueScans) expect(scan["Node Type"]).toBe("Index Scan");
        for (const scan of workItemScans) expect(rowsRead(scan)).toBeLessThan(50); // nothing walks the 400 others or the 60
        const got = (await claims) as WorkItem[];
        expect(got.filter(Boolean).map((i) => i.toolName)).toEqual(["tool5.served", "tool5.served", "tool5.served"].slice(0, got.filter(Boolean).length));
        for (const item of got)
          if (item)
            await t.database.prisma.workItem.update({
              where: { id: item.id },
              data: { status: "queued", leaseToken: null, leaseOwner: null, leaseExpiresAt: null },
            });
      }
    },
  );
});

describe("a report reads only the items it reports", () => {
  it.skipIf(testEngine() !== "postgres")(
    "with 1,500 other items leased since the statistics were gathered (a mass Stop's children), three reports read three rows",
    async () => {
      const task = await createTask(t.database, { title: "three reports among many leases", ownerId: "alice" }, actor);
      const tool = "tool6.reported";
      for (let i = 0; i < 3; i++) await schedule(task.id, tool);
      const queue = new ReportAndClaimQueue(t.database, () => ({ workerId: "pool-reports", toolNames: [tool], leaseMs: 30_000 }));
      const items = (await Promise.all([queue.claim(), queue.claim(), queue.claim()])) as WorkItem[];
      await t.database.pg!.query("ANALYZE"); // the statistics see few leases
      // Then 1,500 other children leased at once (running in other workers), as in a mass Stop or a busy hour.
      await t.database.pg!.query(
        `INSERT INTO "WorkItem" ("id","taskId","kind","toolName","correlationId","status","preparedIntentVersion","mechanism","idempotencyKey",
           "leaseOwner","leaseToken","leaseExpiresAt","createdAt","updatedAt")
         SELECT 'leased-' || g, $1, 'local_worker', 'tool6.elsewhere', 'leased-' || g, 'running', 1, 'abort_signal', 'leased-' || g || ':key',
           'another-worker', gen_random_uuid()::text, timezone('UTC', now()) + interval '1 minute', timezone('UTC', now()), timezone('UTC', now())
         FROM generate_series(1, 1500) g`,
        [task.id],
      );
      const statement = captureStatement(t.database.pg!, (name) => name.startsWith("stopline_reports_and_claims_0_"));
      const reports = Promise.all(
        items.map((item) =>
          queue.report({ workItemId: item.id, leaseToken: item.leaseToken!, outcome: "completed", result: { n: 1 }, actor: "worker:pool-reports" }),
        ),
      );
      const { sql, params, release } = await statement;
      const plan = await explainPlan(t.database.pg!, sql, params, { generic: true, types: CLAIM_PARAM_TYPES });
      release();
      const workItemScans = scansOf(plan, "WorkItem");
      expect(workItemScans.length).toBeGreaterThan(0);
      for (const scan of workItemScans) expect(rowsRead(scan)).toBeLessThan(50); // by id, not through the 1,500 leases
      expect((await reports).map((r) => r.status)).toEqual(["completed", "completed", "completed"]);
      for (const item of items) expect(await statusOf(item.id)).toBe("completed");
    },
  );
});

describe("a statement of many reports costs in proportion to them", () => {
  it.skipIf(testEngine() !== "postgres")(
    "64 reports in one statement: no part of it is read again for each report (the events and rows are paired by the caller)",
    async () => {
      const task = await createTask(t.database, { title: "a mass Stop's reports", ownerId: "alice" }, actor);
      const tool = "tool7.batched";
      for (let i = 0; i < 64; i++) await schedule(task.id, tool);
      const queue = new ReportAndClaimQueue(t.database, () => ({ workerId: "pool-batch", toolNames: [tool], leaseMs: 30_000 }));
      const items = (await Promise.all(Array.from({ length: 64 }, () => queue.claim()))) as WorkItem[];
      expect(items.every(Boolean)).toBe(true);
      const statement = captureStatement(t.database.pg!, (name) => name.startsWith("stopline_reports_and_claims_0_"));
      const reports = Promise.all(
        items.map((item) =>
          queue.report({ workItemId: item.id, leaseToken: item.leaseToken!, outcome: "completed", result: { n: 1 }, actor: "worker:pool-batch" }),
        ),
      );
      const { sql, params, release } = await statement;
      const plan = await explainPlan(t.database.pg!, sql, params, { generic: true, types: CLAIM_PARAM_TYPES });
      release();
      // A CTE read once per row of another is a nested loop over two CTEs — quadratic in the batch (18 ms of a
      // 64-report statement in bench:pg part D). Only the one-row clock (`now`) may be read per row.
      expect(rereadCtes(plan)).toEqual([]);
      const done = await reports;
      expect(done.map((r) => r.status)).toEqual(items.map(() => "completed"));
      // Each item's finished event is the one announced and stored, paired with the right item.
      for (const item of items.slice(0, 5)) {
        const events = await eventsOf(item.id);
        expect(events.at(-1)).toMatchObject({ type: LedgerEvent.workItemFinished, workItemId: item.id, toState: "completed" });
      }
    },
  );
});

describe("a statement of many claims costs in proportion to them", () => {
  it.skipIf(testEngine() !== "postgres")(
    "64 claims over 16 tasks in one statement: no part of it is read again for each claim, every item claimed once with its own lease and event",
    async () => {
      const tool = "tool8.claimed";
      const tasks = [];
      for (let k = 0; k < 16; k++) tasks.push(await createTask(t.database, { title: `claims of task ${k}`, ownerId: "alice" }, actor));
      // Interleaved (task 0, 1, …, 15, 0, …): the queue's order is not the tasks' order, as in a busy hour.
      for (let i = 0; i < 64; i++) await schedule(tasks[i % 16].id, tool);
      const stopped = tasks[15];
      const queue = new ReportAndClaimQueue(t.database, () => ({ workerId: "pool-claims", toolNames: [tool], leaseMs: 30_000 }));
      const statement = captureClaimStatement();
      const claims = Promise.all(Array.from({ length: 64 }, () => queue.claim()));
      const { sql, params, release } = await statement;
      // Joins forced to nested loops: what the planner picks when it guesses one row for each CTE (statistics gathered
      // before a burst). A join of two CTEs — the candidates and their tasks, until 2026-12-08 — then reads one of them
      // again for each row of the other (25 × 25 seen in bench:pg part D); a CTE joined only to tables by id does not.
      const settings = { enable_hashjoin: "off", enable_mergejoin: "off" };
      const plan = await explainPlan(t.database.pg!, sql, params, { generic: true, types: CLAIM_PARAM_TYPES, settings });
      // A Stop of one task commits before the held statement goes out: none of its 4 items may be claimed.
      await requestCancellation(t.database, { taskId: stopped.id, reason: "stopped before the claims", actor });
      release();
      // Only the one-row clock (`now`) may be read per row: a CTE read once per row of another is quadratic in the batch.
      expect(rereadCtes(plan)).toEqual([]);
      const claimed = (await claims).filter((item): item is WorkItem => !!item);
      expect(claimed.every((item) => item.taskId !== stopped.id)).toBe(true);
      expect(claimed).toHaveLength(60);
      expect(new Set(claimed.map((item) => item.leaseToken)).size).toBe(claimed.length);
      for (const item of claimed.slice(0, 8)) {
        expect(await statusOf(item.id)).toBe("running");
        const events = await eventsOf(item.id);
        expect(events.filter((e) => e.type === LedgerEvent.workItemClaimed)).toHaveLength(1);
      }
      const left = await t.database.prisma.workItem.findMany({ where: { taskId: stopped.id } });
      expect(left.map((item) => item.status)).toEqual(["queued", "queued", "queued", "queued"]);
    },
  );
});

describe("a pool's connections keep one plan of the report and claim statement", () => {
  it.skipIf(testEngine() !== "postgres")(
    "with a long history of other tools in the statistics, the statement is not planned anew on each run (generic plans after the first five)",
    async () => {
      // The history as bench:pg part H loads it (20,000 finished children of other tools over the past year, their
      // tasks and events); today's queue is 200 of one tool; the statistics gathered over both.
      await loadHistory(t.database, 20_000);
      const task = await createTask(t.database, { title: "today's work", ownerId: "alice" }, actor);
      const tool = "tool7.today";
      for (let i = 0; i < 200; i++) await schedule(task.id, tool);
      await t.database.pg!.query("ANALYZE");
      const queue = new ReportAndClaimQueue(t.database, () => ({ workerId: "pool-plans", toolNames: [tool], leaseMs: 30_000 }));
      const items = (await Promise.all(Array.from({ length: 8 }, () => queue.claim()))) as WorkItem[];
      // The statement a pool sends when its slots report and claim their next items, run as a connection runs it: 8 times.
      const statement = captureStatement(t.database.pg!, (name) => name.startsWith("stopline_reports_and_claims_"));
      const reports = Promise.all(
        items.map((item) =>
          queue.report({ workItemId: item.id, leaseToken: item.leaseToken!, outcome: "completed", result: { n: 1 }, actor: "worker:pool-plans" }, () => {}),
        ),
      );
      const { sql, params, release } = await statement;
      const client = await t.database.pg!.pool.connect();
      try {
        const element = (v: unknown) => (v === null ? "NULL" : `"${String(v).replace(/["\\]/g, "\\$&")}"`);
        const literal = (v: unknown) => (v === null ? "NULL" : client.escapeLiteral(Array.isArray(v) ? `{${v.map(element).join(",")}}` : String(v)));
        await client.query(`PREPARE pool_plans AS ${sql}`);
        for (let i = 0; i < 8; i++) {
          await client.query("BEGIN");
          await client.query(`EXECUTE pool_plans(${params.map(literal).join(", ")})`);
          await client.query("ROLLBACK");
        }
        const [plans] = (
          await client.query(`SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE name = 'pool_plans'`)
        ).rows;
        expect(plans).toEqual({ generic: 3, custom: 5 }); // planned anew each time, it read { generic: 0, custom: 8 }
        await client.query("DEALLOCATE pool_plans");
      } finally {
        client.release();
      }
      release();
      expect((await reports).map((r) => r.status)).toEqual(Array(8).fill("completed"));
    },
  );
});
