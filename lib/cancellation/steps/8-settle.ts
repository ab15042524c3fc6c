import { onEngine, type Database } from "../../db/client";
import type { WorkItem } from "../../db/generated/sqlite/client.ts";
import { OPEN_REVIEW_STATUSES, TaskStage, WorkItemStatus } from "../../ledger/states";
import { settleQuietlyOnPg, TASK_CANCELLED_REASON, type QuietSettlement } from "../../ledger/sql/settle-quietly";
import { Coalescer, coalescerPerOwner } from "../../db/coalesce";
import { sendAgainIfTransient, type PgDirect } from "../../db/pg";
import { LedgerEvent } from "../../ledger/events";
import { casUpdate, writeLedger, type Writer } from "../../ledger/write";
import { rulePlan, type CancellationPlan } from "../plan";
import { activeCallsOf } from "../plan-children";
import type { BoundaryFacts } from "../read-boundary-facts";
import { recordSettlementIn } from "./8-record-settlement";
import { ENGINE_ACTOR } from "../step-log";
import type { EngineOptions } from "../engine-options";
import { recordPlanIn } from "./3-plan";

// Step 8: the task is cancelled once nothing is still being stopped — or at once, when nothing was in flight.

/** One coalescer per pool: the quiet ends of Stops asked for while one is in flight go out in one statement. */
const quietSettlementsOf = coalescerPerOwner(
  (pg: PgDirect) =>
    new Coalescer(async (tasks: QuietSettlement[]) => {
      // A deadlock victim or a serialization failure committed nothing: sent again rather than each pass taking the long way.
      const settled = await sendAgainIfTransient(() =>
        settleQuietlyOnPg(pg, tasks, { busyStatuses: BUSY_STATUSES, openReviewStatuses: OPEN_REVIEW_STATUSES, actor: ENGINE_ACTOR }),
      );
      return new Map(tasks.map((t) => [t, settled.has(t.taskId)]));
    }),
);

/**
 * A Stop with nothing in flight: no child is still active (the queued ones are removed from dispatch, any other
 * has ended), no resource is held, no effect committed or of unknown outcome. Steps 3–7 have nothing to act on, so the plan, the
 * task's move to cancelled and its settlement are one transaction — a Stop storm on an idle agent stays cheap.
 * Returns false (nothing written) when there is anything to do; the full pass runs then. "in_one_statement": the
 * PostgreSQL statement settled it, and ended the engine lease with it.
 */
export async function settleIfNothingInFlight(
  database: Database,
  facts: BoundaryFacts,
  items: WorkItem[],
  active: WorkItem[],
  o: EngineOptions,
): Promise<false | "in_one_statement" | "in_a_transaction"> {
  const { task } = facts;
  if (active.length || (o.planner && items.length && !task.cancelPlan)) return false;
  if (facts.heldResources || facts.effectsToAccountFor) return false;
  const plan = (task.cancelPlan as CancellationPlan | null) ?? rulePlan(activeCallsOf(items, o.registry));
  // On PostgreSQL one statement: plan, cancelled, settled — each with its event (sql/settle-quietly.ts).
  const inOneStatement = await onEngine(database, {
    postgres: async (pg) => !!(await quietSettlementsOf(pg).load({ taskId: task.id, plan, planReason: plan.fallbackReason ?? null })),
    sqlite: async () => false,
  });
  if (inOneStatement) return "in_one_statement";
  const settled = await writeLedger(database, async (w) => {
    // A child that started meanwhile would have to have been claimed before the boundary: the count in
    // settleTaskIn sees it, and then nothing but the plan is recorded here.
    if (!task.cancelPlan) await recordPlanIn(w, task.id, plan);
    const settled = await settleTaskIn(w, task.id);
    if (settled) await recordSettlementIn(w, task.id);
    return settled;
  });
  return settled ? "in_a_transaction" : false;
}

/** cancel_requested → cancelled once no child is still being stopped (uncertain ones stay under reconciliation). */
export async function settleTask(database: Database, taskId: string) {
  return writeLedger(database, (w) => settleTaskIn(w, taskId));
}

/** Children still being stopped: while any is, the task stays cancel_requested. */
export const BUSY_STATUSES: string[] = [
  WorkItemStatus.queued,
  WorkItemStatus.running,
  WorkItemStatus.submitted,
  WorkItemStatus.cancelling,
  WorkItemStatus.unrecoverable,
];

export async function settleTaskIn(w: Writer, taskId: string): Promise<boolean> {
  const busy = await w.tx.workItem.count({ where: { taskId, status: { in: BUSY_STATUSES } } });
  if (busy) return false;
  return !!(await casUpdate(w, {
    entity: "task",
    id: taskId,
    from: TaskStage.cancelRequested,
    to: TaskStage.cancelled,
    event: { taskId, actor: ENGINE_ACTOR, type: LedgerEvent.taskCancelled, reason: TASK_CANCELLED_REASON },
  }));
}
