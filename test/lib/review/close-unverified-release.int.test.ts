import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Principal } from "../../../lib/auth/tokens";
import { CancellationEngine } from "../../../lib/cancellation/engine";
import { getCancellationSummary } from "../../../lib/cancellation/get-cancellation-summary";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";
import { createTask } from "../../../lib/ledger/create-task";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { FakeService } from "../../support/fake-service";
import { reportTool } from "../../support/fake-tools";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { ToolRegistry } from "../../../lib/tools/registry";
import { WorkerPool } from "../../../lib/workers/worker-pool";
import { decideReviewItem } from "../../../lib/review/decide-review-item";

/**
 * Issue 20, item 6: a lock that no re-query verified released is never marked handled by accident. The real engine
 * orphans a lock the service never releases (cleanup + one retry, witnessed), then a person closes the review item:
 * without an explicit confirmation and evidence the decision is refused and nothing changes; with both it is closed,
 * recorded as closed without a verified release, and the person's summary still says the lock was not released.
 */

let t: TestDatabase;
let svc: FakeService;
const stops: (() => Promise<void>)[] = [];
const oncall: Principal = { id: "test-oncall", name: "oncall", role: "admin" };

beforeEach(async () => {
  t = await createTestDatabase();
  svc = new FakeService();
});
afterEach(async () => {
  await new Promise((r) => setImmediate(r));
  for (const stop of stops.splice(0).reverse()) await stop();
  svc.dispose();
  await t.drop();
});

async function orphanedLock() {
  svc.faults.neverReleaseLock = true;
  const tool = reportTool(svc, { name: "i20.report", steps: 500, stepMs: 10 });
  const registry = new ToolRegistry();
  registry.register(tool);
  const pool = new WorkerPool({ database: t.database, registry, concurrency: 2, pollMs: 20 });
  const engine = new CancellationEngine(t.database, { registry, verifyDelayMs: 30, settleTimeoutMs: 1_000, cancelAttempts: 3, cancelBackoffMs: 10 });
  stops.push(() => pool.stop());
  pool.start();
  const task = await createTask(t.database, { title: "report holding a lock", ownerId: "alice", riskLevel: "low" }, "agent:test");
  const child = await scheduleWorkItem(
    t.database,
    { taskId: task.id, kind: tool.kind, toolName: tool.name, mechanism: tool.mechanism, commitsEffect: tool.commitsEffect, intentVersion: 1 },
    "agent:test",
  );
  await svc.until((s) => s.count("work.step", child.correlationId) >= 1);
  await requestCancellation(t.database, { taskId: task.id, reason: "user pressed Stop", actor: "user:alice" });
  await new Promise((r) => setImmediate(r));
  await engine.run(task.id);
  const item = await t.database.prisma.reviewItem.findFirstOrThrow({ where: { taskId: task.id, kind: "orphaned_resource" } });
  return { registry, task, child, item };
}

describe("closing an orphaned resource without a verified release", () => {
  it("is refused without an explicit confirmation and evidence; once confirmed it is recorded so, and the summary still says not released", async () => {
    const { registry, task, child, item } = await orphanedLock();
    const handle = `report-lock:${child.correlationId}`;
    expect(svc.heldLocks()).toEqual([handle]);

    // the accident of the report: a reason typed, "Mark handled" sent — refused, nothing changes
    await expect(
      decideReviewItem(t.database, registry, oncall, { reviewItemId: item.id, decision: "resolve", reason: "typed for another item" }),
    ).rejects.toThrow(/never verified released/);
    // confirmed but without evidence: refused too
    await expect(
      decideReviewItem(t.database, registry, oncall, {
        reviewItemId: item.id,
        decision: "resolve",
        reason: "released by hand",
        confirmNotVerifiedReleased: true,
      }),
    ).rejects.toThrow(/needs evidence/);
    expect((await t.database.prisma.reviewItem.findUniqueOrThrow({ where: { id: item.id } })).status).toBe("open");

    const decided = await decideReviewItem(t.database, registry, oncall, {
      reviewItemId: item.id,
      decision: "resolve",
      reason: "released by hand",
      evidence: "lock console: no holder at 17:20",
      confirmNotVerifiedReleased: true,
    });
    expect(decided.status).toBe("resolved");
    const row = await t.database.prisma.reviewItem.findUniqueOrThrow({ where: { id: item.id } });
    expect(row.resolution).toBe("closed without a verified release: released by hand — evidence: lock console: no holder at 17:20");
    const event = await t.database.prisma.ledgerEvent.findFirstOrThrow({ where: { entityId: item.id, type: "review_item.resolved" } });
    expect(event.data).toMatchObject({ decision: "resolve", evidence: "lock console: no holder at 17:20", closedWithoutVerifiedRelease: true });

    // the ledger and what the person reads keep saying it was not released
    expect((await t.database.prisma.resource.findFirstOrThrow({ where: { workItemId: child.id } })).state).toBe("orphaned");
    const s = await getCancellationSummary(t.database, task.id);
    expect(s.orphaned_resources.map((r) => r.handle)).toEqual([handle]);
    expect(s.user_message).toMatch(/could not be released/);
    expect(s.user_message.replace(/could not be released/g, "")).not.toMatch(/\breleased\b/);
  });
});
