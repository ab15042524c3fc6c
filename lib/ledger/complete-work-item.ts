import type { Database } from "../db/client";
import type { WorkItem } from "../db/generated/sqlite/client.ts";
import { AppError, ErrorCode } from "../errors";
import { stopRequested } from "./heartbeat-work-item";
import { loadLeasedItem, rejectStaleLease, type LeaseHolder } from "./lease";
import { isLeasedItem, isStoppedItem, SideEffectOutcome, WorkItemStatus } from "./states";
import { canTransition } from "./transitions";
import { completeOnSqlite } from "./sqlite-hot-path";
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

/** Why a lease holder's report cannot be accepted as it is (pure; shared by both write paths), or null. */
export function completionRefusal(
  item: { id: string; taskId: string; status: string; preparedIntentVersion: number },
  task: { cancelRequestedAt: Date | null; intentVersion: number },
  input: Pick<CompleteInput, "outcome" | "partialResult">,
): AppError | null {
  if (isStoppedItem(input.outcome) && !stopRequested(task, item)) {
    return new AppError(ErrorCode.badRequest, `outcome "${input.outcome}" needs a stop request, and task ${item.taskId} has none`, { field: "outcome" });
  }
  if (input.outcome === WorkItemStatus.partial && input.partialResult === undefined) {
    return new AppError(ErrorCode.badRequest, `outcome "partial" needs the partialResult that is kept`, { field: "partialResult" });
  }
  if (!canTransition("workItem", item.status, input.outcome)) {
    return new AppError(ErrorCode.illegalTransition, `work item ${item.id} cannot move from "${item.status}" to "${input.outcome}"`, {
      currentState: item.status, requestedState: input.outcome,
    });
  }
  return null;
}

/** The fields a completion writes (the lease ends with it). */
export function completionFields(input: CompleteInput, now: Date) {
  return {
    result: input.result,
    partialResult: input.partialResult,
    // undefined: keep what the running code reported earlier (ctx.reportPartial)
    partialComplete: input.outcome === WorkItemStatus.partial ? true : input.partialComplete,
    error: input.error ?? null,
    finishedAt: now,
    leaseToken: null,
    leaseOwner: null,
    leaseExpiresAt: null,
  };
}

/**
 * Only this lease holder's own submission is settled by its report. A side effect recorded from a stale
 * lease (a zombie worker) stays unknown until reconciliation asks the service.
 */
export const settledOutcome = (outcome: WorkerOutcome) =>
  outcome === WorkItemStatus.completed ? SideEffectOutcome.committed : SideEffectOutcome.notCommitted;

/**
 * The lease holder reports how its item ended. Stop outcomes (cancelled, partial, cancelled_incomplete) are
 * only accepted when a stop was actually requested. The item's own recorded side effect follows:
 * completed → committed; failed or cancelled by the provider → not committed.
 */
export async function completeWorkItem(database: Database, input: CompleteInput): Promise<WorkItem> {
  if (database.sqlite) return completeOnSqlite(database.sqlite, input);
  return writeLedger(database, async (w) => {
    const item = await loadLeasedItem(w, input.workItemId);
    if (item.leaseToken !== input.leaseToken || !isLeasedItem(item.status)) {
      return rejectStaleLease(w, item, input.leaseToken, "complete", input.actor, { outcome: input.outcome });
    }
    const refusal = completionRefusal(item, item.task, input);
    if (refusal) throw refusal;
    const now = await w.now();
    const { result, partialResult, ...fields } = completionFields(input, now);
    const moved = await casUpdate(w, {
      entity: "workItem",
      id: item.id,
      from: item.status,
      to: input.outcome,
      guard: { leaseToken: input.leaseToken },
      data: { ...fields, partialComplete: fields.partialComplete ?? undefined, result: (result ?? undefined) as never, partialResult: (partialResult ?? undefined) as never },
      event: { taskId: item.taskId, workItemId: item.id, actor: input.actor, type: "work_item.finished", reason: input.error ?? null },
    });
    if (!moved) throw conflict("workItem", item.id, item.status, (await w.tx.workItem.findUnique({ where: { id: item.id } }))?.status);

    const own = item.operationId ? await w.tx.sideEffect.findUnique({ where: { operationId: item.operationId } }) : null;
    if (own?.outcome === SideEffectOutcome.unknown) {
      const to = settledOutcome(input.outcome);
      await casUpdate(w, {
        entity: "sideEffect", id: own.id, from: SideEffectOutcome.unknown, to,
        data: to === SideEffectOutcome.committed
          ? { externalRecordId: input.externalRecordId ?? own.externalRecordId, externalVersion: input.externalVersion ?? own.externalVersion }
          : {},
        event: { taskId: item.taskId, workItemId: item.id, actor: input.actor, type: "side_effect.settled", reason: `work item ${input.outcome}` },
      });
    }
    return moved as unknown as WorkItem;
  });
}
