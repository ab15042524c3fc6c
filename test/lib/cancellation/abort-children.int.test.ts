import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTask } from "../../../lib/ledger/create-task";
import { claimWorkItem } from "../../../lib/ledger/claim-work-item";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { Mechanism, WorkItemKind, WorkItemStatus } from "../../../lib/ledger/states";
import { LedgerEvent } from "../../../lib/ledger/events";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";
import { abortChildren } from "../../../lib/cancellation/steps/4-stop-running";
import { PlanAction } from "../../../lib/cancellation/plan";
import { onCommitted } from "../../../lib/events/bus";
import pg from "pg";
import { recordStatements } from "../../support/explain-plan";

/**
 * Issue 22 §5: the children a Stop ends by their AbortSignal are stopped all at once — one statement on PostgreSQL,
 * one transaction on SQLite — with the same rows and events as one by one: each running child moves to `cancelling`
 * with its event, then its step is logged; a repeated run moves nothing and logs nothing it did not do.
 */
let t: TestDatabase;
beforeEach(async () => void (t = await createTestDatabase()));
afterEach(async () => t?.drop());

async function taskWithRunningChildren(n: number) {
  const task = await createTask(t.database, { title: "research", ownerId: "alice" }, "agent:test");
  for (let i = 0; i < n; i++)
    await scheduleWorkItem(
      t.database,
      { taskId: task.id, kind: WorkItemKind.modelRequest, toolName: "inference.generate", mechanism: Mechanism.abortSignal, intentVersion: 1 },
      "agent:test",
    );
  const running = [];
  for (let i = 0; i < n; i++) running.push((await claimWorkItem(t.database, { workerId: "w1", toolNames: ["inference.generate"], leaseMs: 30_000 }))!);
  await requestCancellation(t.database, { taskId: task.id, reason: "Stop", actor: "user:alice" });
  return { task, running };
}

const eventsOf = (taskId: string) =>
  t.database.prisma.ledgerEvent.findMany({
    where: { taskId, type: { in: [LedgerEvent.workItemCancelling, LedgerEvent.cancellationStep] } },
    orderBy: { seq: "asc" },
  });

describe(`stopping a task's AbortSignal children at once (${testEngine()})`, () => {
  it("each running child moves to cancelling with its event, then its step; the workers hear each move; a repeat changes nothing", async () => {
    const { task, running } = await taskWithRunningChildren(3);
    const heard: string[] = [];
    const off = onCommitted((events) => {
      for (const e of events) if (e.toState === WorkItemStatus.cancelling && e.workItemId) heard.push(e.workItemId);
    });
    const children = running.map((item, i) => ({ item, action: i === 2 ? PlanAction.awaitPartial : PlanAction.abort }));
    const steps = await abortChildren(t.database, task.id, children, true);
    await new Promise((r) => setImmediate(r)); // announced after the commit, on the next turn
    off();

    expect(steps).toEqual(
      running.map((item, i) => ({
        taskId: task.id,
        workItemId: item.id,
        action: i === 2 ? "abort_await_partial" : "abort",
        success: true,
        detail: "AbortSignal fired; waiting for the child to stop",
      })),
    );
    const items = await t.database.prisma.workItem.findMany({ where: { taskId: task.id } });
    for (const item of items)
      expect(item).toMatchObject({ status: WorkItemStatus.cancelling, rowVersion: running.find((r) => r.id === item.id)!.rowVersion + 1 });
    expect(heard.sort()).toEqual(running.map((r) => r.id).sort());
    // Per child, in the order given: its move, then its step (as the one-by-one path wrote them).
    const events = await eventsOf(task.id);
    expect(events.map((e) => [e.workItemId, e.type, e.fromState, e.toState, e.reason, e.data])).toEqual(
      running.flatMap((item, i) => [
        [item.id, LedgerEvent.workItemCancelling, WorkItemStatus.running, WorkItemStatus.cancelling, "AbortSignal sent", null],
        [
          item.id,
          LedgerEvent.cancellationStep,
          null,
          null,
          "AbortSignal fired; waiting for the child to stop",
          { action: i === 2 ? "abort_await_partial" : "abort", success: true },
        ],
      ]),
    );
    expect(events.every((e) => e.actor === "system:cancellation-engine")).toBe(true);
    expect(events.filter((e) => e.type === LedgerEvent.cancellationStep).every((e) => e.entityType === "task" && e.entityId === task.id)).toBe(true);

    // A later run (a takeover, the maintenance pass) that read them running: the guard refuses every move, and it
    // logs nothing (what it did not do is not recorded as done).
    expect(await abortChildren(t.database, task.id, children, false)).toEqual([null, null, null]);
    expect(await eventsOf(task.id)).toHaveLength(6);
  });

  it("a child that already left running is not moved; the first run logs where it was, and another task's child is never touched", async () => {
    const { task, running } = await taskWithRunningChildren(1);
    const other = await taskWithRunningChildren(1);
    const [cancelling] = await t.database.prisma.workItem.findMany({ where: { id: running[0].id } });
    await abortChildren(t.database, task.id, [{ item: cancelling, action: PlanAction.abort }], true);
    const moved = await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: running[0].id } });
    // Read as cancelling now: a first run that finds it so logs "already cancelling" and moves nothing.
    const steps = await abortChildren(t.database, task.id, [{ item: moved, action: PlanAction.abort }], true);
    expect(steps).toEqual([{ taskId: task.id, workItemId: moved.id, action: "abort", success: true, detail: "already cancelling" }]);
    expect(await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: moved.id } })).toMatchObject({ rowVersion: moved.rowVersion });
    // A child of another task named under this task's id: the statement is scoped to the task, so nothing moves.
    expect(await abortChildren(t.database, task.id, [{ item: other.running[0], action: PlanAction.abort }], false)).toEqual([null]);
    expect(await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: other.running[0].id } })).toMatchObject({ status: WorkItemStatus.running });
  });

  it("the passes of Stops of several tasks at the same moment: each task's children moved and logged under it (one statement on PostgreSQL)", async () => {
    const stops = [];
    for (let i = 0; i < 4; i++) stops.push(await taskWithRunningChildren(2));
    const sent = recordStatements(t.database.pg);
    const steps = await Promise.all([
      ...stops.map(({ task, running }) =>
        abortChildren(
          t.database,
          task.id,
          running.map((item) => ({ item, action: PlanAction.abort })),
          true,
        ),
      ),
      // A child of the first task named under the second's id: scoped to its task, it is not touched.
      abortChildren(t.database, stops[1].task.id, [{ item: stops[0].running[0], action: PlanAction.abort }], false),
    ]);
    sent.stop();
    if (t.database.pg) expect(sent.names.filter((n) => n.startsWith("stopline_abort_running"))).toHaveLength(2); // the second pass of task 2 goes after
    for (const [i, { task, running }] of stops.entries()) {
      expect(steps[i].map((s) => s && [s.taskId, s.workItemId, s.detail])).toEqual(
        running.map((item) => [task.id, item.id, "AbortSignal fired; waiting for the child to stop"]),
      );
      const events = await eventsOf(task.id);
      expect(events.map((e) => [e.workItemId, e.type])).toEqual(
        running.flatMap((item) => [
          [item.id, LedgerEvent.workItemCancelling],
          [item.id, LedgerEvent.cancellationStep],
        ]),
      );
      expect(events.filter((e) => e.type === LedgerEvent.cancellationStep).every((e) => e.entityId === task.id)).toBe(true);
      for (const item of running)
        expect(await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } })).toMatchObject({ status: WorkItemStatus.cancelling });
    }
    expect(steps[4]).toEqual([null]);
  });

  // PostgreSQL only (SQLite has one writer): a worker's report statement locks the rows of the items it finishes, of
  // any tasks, in no fixed order. Moving several rows while waiting for one of them could close a cycle with it.
  it.runIf(testEngine() === "postgres")(
    "a child whose row another transaction holds (its worker reporting it) does not hold up the others, and is moved once the lock is released",
    async () => {
      const { task, running } = await taskWithRunningChildren(3);
      const reporter = new pg.Client({ connectionString: t.url });
      await reporter.connect();
      try {
        await reporter.query("BEGIN");
        await reporter.query(`SELECT 1 FROM "WorkItem" WHERE "id" = $1 FOR UPDATE`, [running[1].id]);
        const stopping = abortChildren(
          t.database,
          task.id,
          running.map((item) => ({ item, action: PlanAction.abort })),
          true,
        );
        const statusOf = async (id: string) => (await t.database.prisma.workItem.findUniqueOrThrow({ where: { id } })).status;
        // The two free ones move at once, while the third's row is still held.
        const deadline = Date.now() + 5_000;
        while ((await statusOf(running[2].id)) !== WorkItemStatus.cancelling && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        expect([await statusOf(running[0].id), await statusOf(running[1].id), await statusOf(running[2].id)]).toEqual([
          WorkItemStatus.cancelling,
          WorkItemStatus.running,
          WorkItemStatus.cancelling,
        ]);
        await reporter.query("COMMIT");
        const steps = await stopping;
        expect(steps.map((s) => s?.detail)).toEqual(Array(3).fill("AbortSignal fired; waiting for the child to stop"));
        expect(await statusOf(running[1].id)).toBe(WorkItemStatus.cancelling);
        const events = await eventsOf(task.id);
        // Each child once: its move and its step; the held one's after the others'.
        expect(events.map((e) => [e.workItemId, e.type])).toEqual([
          [running[0].id, LedgerEvent.workItemCancelling],
          [running[0].id, LedgerEvent.cancellationStep],
          [running[2].id, LedgerEvent.workItemCancelling],
          [running[2].id, LedgerEvent.cancellationStep],
          [running[1].id, LedgerEvent.workItemCancelling],
          [running[1].id, LedgerEvent.cancellationStep],
        ]);
      } finally {
        await reporter.end();
      }
    },
  );
});
