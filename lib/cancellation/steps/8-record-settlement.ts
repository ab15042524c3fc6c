import type { Database } from "../../db/client";
import { LedgerEvent } from "../../ledger/events";
import { OPEN_REVIEW_STATUSES, WorkItemStatus } from "../../ledger/states";
import { writeLedger, type Writer } from "../../ledger/write";
import { WORKER_PROCESS_LEASE_PREFIX } from "../../ledger/process-lease";
import { ENGINE_ACTOR } from "../step-log";

/**
 * Settlement is a ledger fact: the engine finished its full pass after the boundary — every child stopped or
 * handed to reconciliation (none is still queued or running: the pass acted on each), the verification gate
 * run, every review item of the pass opened. Until then the summary says IN_PROGRESS (lib/outcomes
 * summaryStatus): a client that waits for "not IN_PROGRESS" gets the engine's considered answer, not a
 * snapshot of its work in progress.
 *
 * One guarded write (settledAt is null, the boundary exists, no child queued or running, no child still being stopped
 * under the lease of a worker whose process is gone) and its event, in one transaction; repeating it changes nothing.
 * Returns whether this call settled it.
 *
 * A child held by a dead process (its lease ran out, or its worker's process lease expired — process-lease.ts) is not
 * "still running": settling over it would put "could not be stopped — still running" in a final-looking summary. Lease
 * recovery takes it over and the engine asks its service (process-liveness.ts); the settlement waits until then (the
 * maintenance pass runs the pass again).
 */
export async function recordSettlement(database: Database, taskId: string): Promise<boolean> {
  return writeLedger(database, (w) => recordSettlementIn(w, taskId));
}

/** The same, inside a ledger transaction (the pass's last one also moves the task to `cancelled`). */
export async function recordSettlementIn(w: Writer, taskId: string): Promise<boolean> {
  {
    const now = await w.now();
    const gone = (
      await w.tx.processLease.findMany({ where: { name: { startsWith: WORKER_PROCESS_LEASE_PREFIX }, expiresAt: { lt: now } }, select: { owner: true } })
    ).map((r) => r.owner);
    const { count } = await w.tx.task.updateMany({
      where: {
        id: taskId,
        settledAt: null,
        cancelRequestedAt: { not: null },
        workItems: {
          none: {
            OR: [
              { status: { in: [WorkItemStatus.queued, WorkItemStatus.running] } },
              {
                status: { in: [WorkItemStatus.submitted, WorkItemStatus.cancelling, WorkItemStatus.unrecoverable] },
                leaseToken: { not: null },
                OR: [{ leaseExpiresAt: { lt: now } }, ...(gone.length ? [{ leaseOwner: { in: gone } }] : [])],
              },
            ],
          },
        },
      },
      data: { settledAt: now },
    });
    if (!count) return false;
    const openReviewItems = await w.tx.reviewItem.count({ where: { taskId, status: { in: OPEN_REVIEW_STATUSES } } });
    await w.event({ taskId, entityType: "task", entityId: taskId, actor: ENGINE_ACTOR, type: LedgerEvent.cancellationSettled, data: { openReviewItems } });
    return true;
  }
}
