import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkItem } from "../../../lib/db/generated/sqlite/client.ts";
import { AppError } from "../../../lib/errors";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";
import { claimWorkItem } from "../../../lib/ledger/claim-work-item";
import { createTask } from "../../../lib/ledger/create-task";
import { recoverExpiredLeases } from "../../../lib/ledger/recover-expired-leases";
import { ReportAndClaimQueue } from "../../../lib/ledger/report-and-claim";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";

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

/** Counts the statements the hot path sends (PostgreSQL only; SQLite has no statements to share). */
function countStatements(): { count: () => number; stop: () => void } {
  const pg = t.database.pg;
  if (!pg) return { count: () => NaN, stop: () => {} };
  const original = pg.query;
  let n = 0;
  (pg as { query: typeof original }).query = ((sql: string, params?: unknown[], name?: string) => {
    if (name?.startsWith("stopline_reports_and_claims")) n++;
    return original.call(pg, sql, params, name);
  }) as typeof original;
  return { count: () => n, stop: () => ((pg as { query: typeof original }).query = original) };
}

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

    const statements = countStatements();
    const next: WorkItem[] = [];
    const reported = await Promise.all(
      first.map((item) =>
        queue.report({ workItemId: item!.id, leaseToken: item!.leaseToken!, outcome: "completed", result: { n: 1 }, actor: "worker:pool-a" }, (claimed) =>
          next.push(claimed),
        ),
      ),
    );
    statements.stop();
    if (t.database.pg) expect(statements.count()).toBe(1);

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
