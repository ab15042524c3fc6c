import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { stopRequested } from "./heartbeat-work-item";
import { loadLeasedItem, rejectStaleLease, type LeaseHolder } from "./lease";
import { isLeasedItem, isStoppedItem, SideEffectOutcome, WorkItemStatus } from "./states";
import { canTransition } from "./transitions";
import { casUpdate, conflict, writeLedger } from "./write";

export const WorkerOutcome = {
  completed: WorkItemStatus.completed,
  failed: WorkItemStatus.failed,
  cancelled: WorkItemStatus.cancelled,
  partial: WorkItemStatus.partial,
  cancelledIncomplete: WorkItemStatus.cancelledIncomplete,
} as const;
export type WorkerOutcome = (typeof WorkerOutcome)[keyof typeof WorkerOutcome];

export interface CompleteInput extends LeaseHolder {
  outcome: WorkerOutcome;
  result?: unknown;
  partialResult?: unknown;
  /** For `partial`: the worker vouches that the partial result is a complete, valid subset. */
  partialComplete?: boolean;
  error?: string | null;
  externalRecordId?: string | null;
  externalVersion?: string | null;
  actor: string;
}

/**
 * The lease holder reports how its item ended. Stop outcomes (cancelled, partial, cancelled_incomplete) are
 * only accepted when a stop was actually requested. An item's recorded side effects follow: completed →
 * committed; failed or cancelled by the provider → not committed.
 */
export async function completeWorkItem(database: Database, input: CompleteInput) {
  return writeLedger(database, async (w) => {
    const item = await loadLeasedItem(w, input.workItemId);
    if (item.leaseToken !== input.leaseToken || !isLeasedItem(item.status)) {
      return rejectStaleLease(w, item, input.leaseToken, "complete", input.actor, { outcome: input.outcome });
    }
    if (isStoppedItem(input.outcome) && !stopRequested(item.task, item)) {
      throw new AppError(ErrorCode.badRequest, `outcome "${input.outcome}" needs a stop request, and task ${item.taskId} has none`, { field: "outcome" });
    }
    if (input.outcome === WorkItemStatus.partial && input.partialResult === undefined) {
      throw new AppError(ErrorCode.badRequest, `outcome "partial" needs the partialResult that is kept`, { field: "partialResult" });
    }
    if (!canTransition("workItem", item.status, input.outcome)) {
      throw new AppError(ErrorCode.illegalTransition, `work item ${item.id} cannot move from "${item.status}" to "${input.outcome}"`, {
        currentState: item.status, requestedState: input.outcome,
      });
    }
    const now = await w.now();
    const moved = await casUpdate(w, {
      entity: "workItem",
      id: item.id,
      from: item.status,
      to: input.outcome,
      guard: { leaseToken: input.leaseToken },
      data: {
        result: (input.result ?? undefined) as never,
        partialResult: (input.partialResult ?? undefined) as never,
        partialComplete: input.outcome === WorkItemStatus.partial ? true : (input.partialComplete ?? null),
        error: input.error ?? null,
        finishedAt: now,
        leaseToken: null,
        leaseOwner: null,
        leaseExpiresAt: null,
      },
      event: { taskId: item.taskId, workItemId: item.id, actor: input.actor, type: "work_item.finished", reason: input.error ?? null },
    });
    if (!moved) throw conflict("workItem", item.id, item.status, (await w.tx.workItem.findUnique({ where: { id: item.id } }))?.status);

    const settled = input.outcome === WorkItemStatus.completed ? SideEffectOutcome.committed : SideEffectOutcome.notCommitted;
    const pending = await w.tx.sideEffect.findMany({ where: { workItemId: item.id, outcome: SideEffectOutcome.unknown } });
    for (const effect of pending) {
      // A stop outcome after submission is the provider's word that the action did not take effect;
      // "failed" likewise. Anything the worker cannot vouch for should be reported via reconciliation instead.
      await casUpdate(w, {
        entity: "sideEffect", id: effect.id, from: SideEffectOutcome.unknown, to: settled,
        data: input.outcome === WorkItemStatus.completed
          ? { externalRecordId: input.externalRecordId ?? effect.externalRecordId, externalVersion: input.externalVersion ?? effect.externalVersion }
          : {},
        event: { taskId: item.taskId, workItemId: item.id, actor: input.actor, type: "side_effect.settled", reason: `work item ${input.outcome}` },
      });
    }
    return w.tx.workItem.findUniqueOrThrow({ where: { id: item.id } });
  });
}
