import { AppError, ErrorCode } from "../errors";
import type { LeaseHolder } from "./lease";
import { isStoppedItem, SideEffectOutcome, WorkItemStatus } from "./states";
import { canTransition } from "./transitions";

/**
 * The rules of a lease holder's report, pure and shared by every write path (the Prisma path, the PostgreSQL
 * and SQLite hot paths, the batched report-and-claim): what may be reported, what it writes, what it settles.
 */

/** Is a stop requested for this item: the task's Stop, a newer intent, or a Stop of this step (issue 13). */
export function stopRequested(
  task: { cancelRequestedAt: Date | null; intentVersion: number },
  item: { preparedIntentVersion: number; status: string; stopRequestedAt?: Date | null },
): boolean {
  // …or a Stop of this step alone (or of a step above it): issue 13's scoped Stop.
  return (
    task.cancelRequestedAt !== null ||
    item.preparedIntentVersion !== task.intentVersion ||
    item.status === WorkItemStatus.cancelling ||
    item.stopRequestedAt != null
  );
}

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
  item: { id: string; taskId: string; status: string; preparedIntentVersion: number; stopRequestedAt?: Date | null },
  task: { cancelRequestedAt: Date | null; intentVersion: number },
  input: Pick<CompleteInput, "outcome" | "partialResult">,
): AppError | null {
  if (isStoppedItem(input.outcome) && !stopRequested(task, item)) {
    return new AppError(ErrorCode.badRequest, `outcome "${input.outcome}" needs a stop request, and task ${item.taskId} has none`, { field: "outcome" });
  }
  const incomplete = reportRefusal(input);
  if (incomplete) return incomplete;
  if (!canTransition("workItem", item.status, input.outcome)) {
    return new AppError(ErrorCode.illegalTransition, `work item ${item.id} cannot move from "${item.status}" to "${input.outcome}"`, {
      currentState: item.status,
      requestedState: input.outcome,
    });
  }
  return null;
}

/** What is wrong with a report on its own, whatever the item's state, or null. */
export function reportRefusal(input: Pick<CompleteInput, "outcome" | "partialResult">): AppError | null {
  if (input.outcome === WorkItemStatus.partial && input.partialResult === undefined) {
    return new AppError(ErrorCode.badRequest, `outcome "partial" needs the partialResult that is kept`, { field: "partialResult" });
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
export const settledOutcome = (outcome: WorkerOutcome) => (outcome === WorkItemStatus.completed ? SideEffectOutcome.committed : SideEffectOutcome.notCommitted);
