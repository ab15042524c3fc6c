import { onEngine, type Database } from "../../db/client";
import { Coalescer, coalescerPerOwner, oncePerStatement } from "../../db/coalesce";
import { sendAgainIfTransient, type PgDirect } from "../../db/pg";
import { recordPlansOnPg, type PlanToRecord } from "../../ledger/sql/record-plan";
import type { WorkItem } from "../../db/generated/sqlite/client.ts";
import { LedgerEvent } from "../../ledger/events";
import { writeLedger, type Writer } from "../../ledger/write";
import type { CancellationPlan } from "../plan";
import { activeCallsOf, planFor } from "../plan-children";
import { ENGINE_ACTOR } from "../step-log";
import type { EngineOptions } from "../engine-options";

// Step 3: the plan — one per task, however many engine runs.

/**
 * One coalescer per pool: the plans of Stops whose passes reach step 3 while one is being recorded are recorded
 * together, in one statement (each its own guarded write with its event). In task id order, so two engines' batches
 * lock shared tasks in the same order; two plans of one task in a batch go in successive statements.
 */
const plansOf = coalescerPerOwner(
  (pg: PgDirect) =>
    // A deadlock victim or a serialization failure committed nothing: sent again.
    new Coalescer((asked: PlanToRecord<CancellationPlan>[]) => oncePerStatement(asked, (once) => sendAgainIfTransient(() => recordPlansOnPg(pg, once)))),
);

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
    postgres: async (pg) => {
      const stands = await plansOf(pg).load({ taskId, plan, reason: plan.fallbackReason ?? null, actor: ENGINE_ACTOR });
      if (!stands) throw new Error(`task ${taskId} not found while recording its plan`);
      return stands;
    },
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
