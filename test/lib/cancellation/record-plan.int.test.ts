import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";
import { recordPlanOnce } from "../../../lib/cancellation/steps/3-plan";
import { ENGINE_ACTOR } from "../../../lib/cancellation/step-log";
import { createTask } from "../../../lib/ledger/create-task";
import { LedgerEvent } from "../../../lib/ledger/events";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { ToolRegistry } from "../../../lib/tools/registry";

// One plan per Stop, however many engine runs record it at once (a duplicate Stop, two instances, a takeover): the
// guarded write decides, the run that lost uses the winner's plan, and the ledger holds one plan and one event.

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => t?.drop());

const actor = "agent:test";

describe("recording a Stop's plan", () => {
  it("two runs record at once: one records, the other gets the same plan; one cancellation.planned event carries it", async () => {
    const task = await createTask(t.database, { title: "planned twice", ownerId: "alice" }, actor);
    const item = await scheduleWorkItem(
      t.database,
      { taskId: task.id, kind: "local_worker", toolName: "plan.tool", mechanism: "abort_signal", intentVersion: 1 },
      actor,
    );
    await requestCancellation(t.database, { taskId: task.id, actor });
    const items = await t.database.prisma.workItem.findMany({ where: { taskId: task.id } });
    const options = { registry: new ToolRegistry() };
    const runs = await Promise.all([
      recordPlanOnce(t.database, { id: task.id, cancelPlan: null }, items, options),
      recordPlanOnce(t.database, { id: task.id, cancelPlan: null }, items, options),
    ]);
    expect(runs.map((r) => r.recorded).sort()).toEqual([false, true]);
    expect(runs[0].plan).toEqual(runs[1].plan);
    expect(runs[0].plan.steps.map((s) => s.tool_call_id)).toEqual([item.id]);

    const stored = await t.database.prisma.task.findUniqueOrThrow({ where: { id: task.id } });
    expect(stored.cancelPlan).toEqual(runs[0].plan);
    expect(stored.cancelPlannedAt).not.toBeNull();
    const events = await t.database.prisma.ledgerEvent.findMany({ where: { taskId: task.id, type: LedgerEvent.cancellationPlanned } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ entityType: "task", entityId: task.id, workItemId: null, data: runs[0].plan });
    expect(events[0].actor).toBe(ENGINE_ACTOR);

    // A later run reads the recorded plan and records nothing.
    const later = await recordPlanOnce(t.database, { id: task.id, cancelPlan: stored.cancelPlan }, items, options);
    expect(later).toEqual({ plan: runs[0].plan, recorded: false });
    expect(await t.database.prisma.ledgerEvent.count({ where: { taskId: task.id, type: LedgerEvent.cancellationPlanned } })).toBe(1);
  });

  it("the plans of many Stops recorded at once (one statement on PostgreSQL): each task its own plan and one event", async () => {
    const options = { registry: new ToolRegistry() };
    const stops = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const task = await createTask(t.database, { title: `planned together ${i}`, ownerId: "alice" }, actor);
        const children = [];
        for (let c = 0; c <= i % 3; c++)
          children.push(
            await scheduleWorkItem(
              t.database,
              { taskId: task.id, kind: "local_worker", toolName: "plan.tool", mechanism: "abort_signal", intentVersion: 1 },
              actor,
            ),
          );
        await requestCancellation(t.database, { taskId: task.id, actor });
        return { task, children };
      }),
    );
    const runs = await Promise.all(
      stops.map(async ({ task }) =>
        recordPlanOnce(t.database, { id: task.id, cancelPlan: null }, await t.database.prisma.workItem.findMany({ where: { taskId: task.id } }), options),
      ),
    );
    for (const [i, { task, children }] of stops.entries()) {
      expect(runs[i].recorded).toBe(true);
      expect(runs[i].plan.steps.map((s) => s.tool_call_id).sort()).toEqual(children.map((c) => c.id).sort());
      const stored = await t.database.prisma.task.findUniqueOrThrow({ where: { id: task.id } });
      expect(stored.cancelPlan).toEqual(runs[i].plan);
      const events = await t.database.prisma.ledgerEvent.findMany({ where: { taskId: task.id, type: LedgerEvent.cancellationPlanned } });
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ entityId: task.id, actor: ENGINE_ACTOR, data: runs[i].plan });
    }
  });
});
