import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";
import { pgOf } from "../../../lib/db/client";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";
import { claimWorkItem } from "../../../lib/ledger/claim-work-item";
import { createTask } from "../../../lib/ledger/create-task";
import { IllegalTransitionError } from "../../../lib/ledger/errors";
import { cancelQueuedOnPg, cancelQueuedOnSqlite } from "../../../lib/ledger/sql/remove-queued";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { TaskStage, WorkItemStatus } from "../../../lib/ledger/states";
import { TASK_TRANSITIONS, WORK_ITEM_TRANSITIONS } from "../../../lib/ledger/transitions";
import { abortChildren } from "../../../lib/cancellation/steps/4-stop-running";
import { PlanAction } from "../../../lib/cancellation/plan";

/**
 * Issue 21 item 1: the transition table is consulted on every state write — the raw-SQL hot paths included, on both
 * databases. Each scenario takes one move out of the table and asks the hot path to make it: the statement must
 * refuse with IllegalTransitionError and leave the ledger as it was.
 */

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => t?.drop());

const restore: (() => void)[] = [];
afterEach(() => {
  for (const undo of restore.splice(0)) undo();
});

/** Removes `to` from the table's list for `from` until the scenario ends. */
function forbid(table: Record<string, readonly string[]>, from: string, to: string) {
  const allowed = table[from];
  (table as Record<string, readonly string[]>)[from] = allowed.filter((s) => s !== to);
  restore.push(() => ((table as Record<string, readonly string[]>)[from] = allowed));
}

async function queuedItem(title: string) {
  const task = await createTask(t.database, { title, ownerId: "alice" }, "agent:test");
  const item = await scheduleWorkItem(
    t.database,
    {
      taskId: task.id,
      kind: "local_worker",
      toolName: `table.${title.replaceAll(" ", "_")}`,
      mechanism: "abort_signal",
      commitsEffect: false,
      intentVersion: task.intentVersion,
    },
    "agent:test",
  );
  return { task, item };
}

const eventsOf = (taskId: string) => t.database.prisma.ledgerEvent.findMany({ where: { taskId }, orderBy: { seq: "asc" } });

describe(`the raw-SQL hot paths consult the transition table (${testEngine()})`, () => {
  it("a claim (queued → running) the table forbids is refused, and the item stays queued", async () => {
    const { task, item } = await queuedItem("claim refused");
    forbid(WORK_ITEM_TRANSITIONS, WorkItemStatus.queued, WorkItemStatus.running);
    const before = await eventsOf(task.id);

    await expect(claimWorkItem(t.database, { workerId: "w1", toolNames: [item.toolName], leaseMs: 10_000 })).rejects.toBeInstanceOf(IllegalTransitionError);

    expect((await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } })).status).toBe(WorkItemStatus.queued);
    expect(await eventsOf(task.id)).toEqual(before);
    for (const undo of restore.splice(0)) undo();
    expect((await claimWorkItem(t.database, { workerId: "w1", toolNames: [item.toolName], leaseMs: 10_000 }))?.id, "with the table back, it is claimed").toBe(
      item.id,
    );
  });

  it("a boundary (active → cancel_requested) the table forbids is refused, and the task stays active", async () => {
    const { task } = await queuedItem("boundary refused");
    forbid(TASK_TRANSITIONS, TaskStage.active, TaskStage.cancelRequested);

    await expect(requestCancellation(t.database, { taskId: task.id, reason: "Stop", actor: "user:alice" })).rejects.toBeInstanceOf(IllegalTransitionError);

    const row = await t.database.prisma.task.findUniqueOrThrow({ where: { id: task.id } });
    expect(row.stage).toBe(TaskStage.active);
    expect(row.cancelRequestedAt).toBeNull();
  });

  it("removing queued children (queued → cancelled) the table forbids is refused, and the child stays queued", async () => {
    const { task, item } = await queuedItem("removal refused");
    await requestCancellation(t.database, { taskId: task.id, reason: "Stop", actor: "user:alice" });
    forbid(WORK_ITEM_TRANSITIONS, WorkItemStatus.queued, WorkItemStatus.cancelled);

    const removeQueued = async () =>
      t.database.sqlite ? cancelQueuedOnSqlite(t.database.sqlite, task.id, "system:test") : cancelQueuedOnPg(pgOf(t.database), task.id, "system:test");
    await expect(removeQueued()).rejects.toBeInstanceOf(IllegalTransitionError);

    expect((await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } })).status).toBe(WorkItemStatus.queued);
  });

  it("stopping AbortSignal children (running → cancelling) the table forbids is refused, and the child stays running", async () => {
    const { task, item } = await queuedItem("abort refused");
    const claimed = await claimWorkItem(t.database, { workerId: "w1", toolNames: [item.toolName], leaseMs: 30_000 });
    expect(claimed?.id).toBe(item.id);
    await requestCancellation(t.database, { taskId: task.id, reason: "Stop", actor: "user:alice" });
    forbid(WORK_ITEM_TRANSITIONS, WorkItemStatus.running, WorkItemStatus.cancelling);

    await expect(abortChildren(t.database, task.id, [{ item: claimed!, action: PlanAction.abort }], true)).rejects.toBeInstanceOf(IllegalTransitionError);

    expect((await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } })).status).toBe(WorkItemStatus.running);
    expect(await t.database.prisma.ledgerEvent.count({ where: { workItemId: item.id, type: "cancellation.step" } })).toBe(0);
  });
});
