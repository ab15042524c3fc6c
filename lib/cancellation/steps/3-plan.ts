import { onEngine, type Database } from "../../db/client";
import { recordPlanOnPg } from "../../ledger/sql/record-plan";
import type { WorkItem } from "../../db/generated/sqlite/client.ts";
import { LedgerEvent } from "../../ledger/events";
import { writeLedger, type Writer } from "../../ledger/write";
import type { CancellationPlan } from "../plan";
import { activeCallsOf, planFor } from "../plan-children";
import { ENGINE_ACTOR } from "../step-log";
import type { EngineOptions } from "../engine-options";

// Step 3: the plan — one per task, however many engine runs.

/**
 * One plan per task, however many engine runs (duplicate Stops, several instances, a takeover after a crash):
 * the guarded write of `cancelPlannedAt` decides; a run that loses it uses the winner's plan.
 */
export async function recordPlanOnce(
  database: Database,
  task: { id: string; cancelPlan: unknown },
  items: WorkItem[],
  o: EngineOptions,
): Promise<{ plan: CancellationPlan; recorded: boolean }> {
  const taskId = task.id;
  if (task.cancelPlan) return { plan: task.cancelPlan as CancellationPlan, recorded: false };
  const plan = await planFor(activeCallsOf(items, o.registry), o.planner);
  return onEngine(database, {
    postgres: (pg) => recordPlanOnPg(pg, { taskId, plan, reason: plan.fallbackReason ?? null, actor: ENGINE_ACTOR }),
    sqlite: () => writeLedger(database, (w) => recordPlanIn(w, taskId, plan)),
  });
}

/** The guarded write of the plan and its event, inside a ledger transaction; a run that lost gets the winner's. */
export async function recordPlanIn(w: Writer, taskId: string, plan: CancellationPlan): Promise<{ plan: CancellationPlan; recorded: boolean }> {
  const { count } = await w.tx.task.updateMany({
    where: { id: taskId, cancelPlannedAt: null },
    data: { cancelPlan: plan as never, cancelPlannedAt: await w.now() },
  });
  if (!count) {
    const winner = await w.tx.task.findUniqueOrThrow({ where: { id: taskId }, select: { cancelPlan: true } });
    return { plan: winner.cancelPlan as unknown as CancellationPlan, recorded: false };
  }
  await w.event({
    taskId,
    entityType: "task",
    entityId: taskId,
    actor: ENGINE_ACTOR,
    type: LedgerEvent.cancellationPlanned,
    reason: plan.fallbackReason ?? null,
    data: plan as never,
  });
  return { plan, recorded: true };
}
