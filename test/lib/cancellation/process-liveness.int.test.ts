import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTask } from "../../../lib/ledger/create-task";
import { claimWorkItem } from "../../../lib/ledger/claim-work-item";
import { holdProcessLease, workerProcessLeaseName } from "../../../lib/ledger/process-lease";
import { recoverExpiredLeases } from "../../../lib/ledger/recover-expired-leases";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { Mechanism, WorkItemKind, WorkItemStatus } from "../../../lib/ledger/states";
import { casUpdate, writeLedger } from "../../../lib/ledger/write";
import { LedgerEvent } from "../../../lib/ledger/events";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";
import { recordSettlement } from "../../../lib/cancellation/steps/8-record-settlement";
import { recoverChildrenOfGoneProcesses } from "../../../lib/cancellation/process-liveness";

/**
 * Issue 19 §2 at the ledger: a child held by a worker whose process lease expired belongs to a dead process. It is not
 * "still running": settlement refuses over it, lease recovery takes it over at once (its own 30 s lease
 * notwithstanding), and the pass's liveness check recovers it; a worker whose process lease is renewed is alive.
 */
let t: TestDatabase;
beforeEach(async () => void (t = await createTestDatabase()));
afterEach(async () => t?.drop());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function stoppedChildHeldBy(workerId: string) {
  const task = await createTask(t.database, { title: "export", ownerId: "alice" }, "agent:test");
  const item = await scheduleWorkItem(
    t.database,
    { taskId: task.id, kind: WorkItemKind.remoteTool, toolName: "reports.export_report", mechanism: Mechanism.providerCancel, intentVersion: 1 },
    "agent:test",
  );
  const claimed = await claimWorkItem(t.database, { workerId, toolNames: ["reports.export_report"], leaseMs: 30_000 });
  expect(claimed?.id).toBe(item.id);
  await requestCancellation(t.database, { taskId: task.id, reason: "Stop", actor: "user:alice" });
  await writeLedger(t.database, (w) =>
    casUpdate(w, {
      entity: "workItem",
      id: item.id,
      from: WorkItemStatus.running,
      to: WorkItemStatus.cancelling,
      event: { taskId: task.id, workItemId: item.id, actor: "test", type: LedgerEvent.workItemCancelling, reason: "provider cancellation requested" },
    }),
  );
  return { task, item };
}

describe(`a child held by a dead process (${testEngine()})`, () => {
  it("its worker's process lease expired: settlement refuses, recovery takes it over at once (uncertain, the event says why), then the Stop may settle", async () => {
    const { task, item } = await stoppedChildHeldBy("w-dead");
    await holdProcessLease(t.database, { name: workerProcessLeaseName("w-dead"), owner: "w-dead", ttlMs: 100 });
    await sleep(250);

    expect(await recordSettlement(t.database, task.id)).toBe(false);
    expect(await recoverChildrenOfGoneProcesses(t.database, task.id)).toEqual([item.id]);
    const after = await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } });
    expect(after).toMatchObject({ status: WorkItemStatus.uncertain, leaseToken: null });
    const [expired] = await t.database.prisma.ledgerEvent.findMany({ where: { workItemId: item.id, type: LedgerEvent.leaseExpired } });
    expect(expired.reason).toContain("the process that ran it stopped");
    expect(expired.data).toMatchObject({ processGone: true, leaseOwner: "w-dead" });
    expect(await recordSettlement(t.database, task.id)).toBe(true);
  });

  it("a worker that renews its process lease is alive: nothing is recovered and its child is left to it", async () => {
    const { task, item } = await stoppedChildHeldBy("w-alive");
    await holdProcessLease(t.database, { name: workerProcessLeaseName("w-alive"), owner: "w-alive", ttlMs: 1_000 });
    let renewing: Promise<unknown> = Promise.resolve();
    const renew = setInterval(
      () => (renewing = holdProcessLease(t.database, { name: workerProcessLeaseName("w-alive"), owner: "w-alive", ttlMs: 1_000 })),
      200,
    );
    try {
      expect(await recoverChildrenOfGoneProcesses(t.database, task.id)).toEqual([]);
      expect((await recoverExpiredLeases(t.database)).uncertain).toEqual([]);
      expect((await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } })).status).toBe(WorkItemStatus.cancelling);
      // The pass said why it waited.
      expect(await t.database.prisma.ledgerEvent.count({ where: { workItemId: item.id, type: LedgerEvent.cancellationStep } })).toBe(1);
    } finally {
      clearInterval(renew);
      await renewing;
    }
  });

  it("a worker without a process lease is judged by its item lease alone (as before)", async () => {
    const { task, item } = await stoppedChildHeldBy("w-unregistered");
    expect(await recoverChildrenOfGoneProcesses(t.database, task.id)).toEqual([]);
    expect((await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } })).status).toBe(WorkItemStatus.cancelling);
    expect(await recordSettlement(t.database, task.id)).toBe(true);
  });

  it("the process lease of a worker gone for an hour is forgotten once none of its leases is left; a recent one is kept", async () => {
    const longAgo = new Date(Date.now() - 2 * 3_600_000);
    await t.database.prisma.processLease.create({ data: { name: workerProcessLeaseName("w-old"), owner: "w-old", expiresAt: longAgo } });
    await t.database.prisma.processLease.create({
      data: { name: workerProcessLeaseName("w-recent"), owner: "w-recent", expiresAt: new Date(Date.now() - 60_000) },
    });
    await recoverExpiredLeases(t.database);
    expect((await t.database.prisma.processLease.findMany({ orderBy: { name: "asc" } })).map((r) => r.owner)).toEqual(["w-recent"]);
  });
});
