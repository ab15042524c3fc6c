import { pgOf, type Database } from "../db/client";
import type { WorkItem } from "../db/generated/sqlite/client.ts";
import { AppError, ErrorCode } from "../errors";
import { stopRequested } from "./heartbeat-work-item";
import { staleLeaseError, type LeaseHolder } from "./lease";
import { completeOnPg, insertEventOnPg } from "./pg-hot-path";
import { isLeasedItem, isStoppedItem, SideEffectOutcome, WorkItemStatus } from "./states";
import { canTransition } from "./transitions";
import { completeOnSqlite } from "./sqlite-hot-path";

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

/**
 * The lease holder reports how its item ended. Stop outcomes (cancelled, partial, cancelled_incomplete) are
 * only accepted when a stop was actually requested. The item's own recorded side effect follows:
 * completed → committed; failed or cancelled by the provider → not committed. One statement on the driver on
 * both engines; a report that the guarded statement refused is explained (and a stale token recorded) here.
 */
export async function completeWorkItem(database: Database, input: CompleteInput): Promise<WorkItem> {
  if (database.sqlite) return completeOnSqlite(database.sqlite, input);
  const pg = pgOf(database);
  const early = reportRefusal(input);
  if (early) throw early;
  const { result, partialResult, partialComplete, error } = completionFields(input, new Date());
  // Twice at most: a stop outcome can be refused by a statement that read the task just before its boundary.
  for (let attempt = 0; ; attempt++) {
    const done = await completeOnPg(pg, input, { result, partialResult, partialComplete, error });
    if (done) return done;
    const item = await database.prisma.workItem.findUnique({ where: { id: input.workItemId }, include: { task: true } });
    if (!item) throw staleLeaseError.notFound(input.workItemId);
    if (item.leaseToken !== input.leaseToken || !isLeasedItem(item.status)) {
      await insertEventOnPg(pg, staleLeaseError.event(item, input.leaseToken, "complete", input.actor, { outcome: input.outcome }));
      throw staleLeaseError.error(item);
    }
    const refusal = completionRefusal(item, item.task, input);
    if (refusal) throw refusal;
    if (attempt === 1) throw staleLeaseError.conflict(item);
  }
}
