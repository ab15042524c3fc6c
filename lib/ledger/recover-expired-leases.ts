import type { Database } from "../db/client";
import { LEASED_ITEM_STATUSES, Mechanism, WorkItemStatus } from "./states";
import { casUpdate, writeLedger } from "./write";
import { LedgerEvent } from "./events";
import { WORKER_PROCESS_LEASE_PREFIX } from "./process-lease";

export const DEFAULT_RECONCILE_WINDOW_MS = 15 * 60_000;

export interface RecoveryResult {
  requeued: string[];
  /** Will never run again: removed (nothing started after the boundary), or discarded (ended with its worker). */
  cancelled: string[];
  uncertain: string[];
}

/**
 * Resumes from recorded state after a worker vanished (its lease expired, judged by the database clock):
 * - never submitted and never passed a checkpoint → safe to run again: back to `queued`, or `cancelled`
 *   when the task's boundary exists (it will never start again);
 * - submitted, or passed its checkpoint (it may have submitted before dying), or was being stopped →
 *   `uncertain` with a reconcile deadline. It is never re-run: only reconciliation by operation id /
 *   idempotency key may find out what happened (invariant 5);
 * - except a call that commits nothing and is stopped only by its AbortSignal (a model generation, a read, local
 *   work) with no operation recorded: it died with its worker and nothing outside can be checked or can have
 *   changed. After a Stop it is simply discarded (`cancelled_incomplete`, or `partial` when a complete part was
 *   vouched for) — never an "uncertain action" that nobody will ever establish.
 * The old lease token stops working at once (the lease fields are cleared), so a zombie worker that wakes
 * up later is rejected and recorded.
 *
 * A lease also ends with its worker's process: when the worker's process lease (`worker:<id>`, process-lease.ts)
 * has expired, the process is gone and its items are recovered at once, however long their own leases still run
 * (issue 19 §2: a dead process's work is not "still running").
 */
export async function recoverExpiredLeases(
  database: Database,
  options: { actor?: string; reconcileWindowMs?: number; limit?: number } = {},
): Promise<RecoveryResult> {
  const actor = options.actor ?? "system:lease-recovery";
  return writeLedger(database, async (w) => {
    const now = await w.now();
    // Workers whose process is gone (their process lease expired).
    const gone = (
      await w.tx.processLease.findMany({ where: { name: { startsWith: WORKER_PROCESS_LEASE_PREFIX }, expiresAt: { lt: now } }, select: { owner: true } })
    ).map((r) => r.owner);
    const goneSet = new Set(gone);
    const expired = await w.tx.workItem.findMany({
      // leaseToken not null: the partial index of leased items (a lease always has both).
      where: {
        status: { in: LEASED_ITEM_STATUSES },
        leaseToken: { not: null },
        OR: [{ leaseExpiresAt: { lt: now } }, ...(gone.length ? [{ leaseOwner: { in: gone } }] : [])],
      },
      include: { task: { select: { cancelRequestedAt: true } } },
      orderBy: { leaseExpiresAt: "asc" },
      take: options.limit ?? 200,
    });
    const result: RecoveryResult = { requeued: [], cancelled: [], uncertain: [] };
    for (const item of expired) {
      const processGone = !!item.leaseOwner && goneSet.has(item.leaseOwner);
      const whose = processGone ? "the process that ran it stopped (its process lease expired)" : "the worker's lease expired";
      if (item.status === WorkItemStatus.uncertain) {
        // Already under reconciliation: the worker that might still have reported is gone; only its lease ends.
        const { count } = await w.tx.workItem.updateMany({
          where: { id: item.id, leaseToken: item.leaseToken },
          data: { leaseToken: null, leaseOwner: null, leaseExpiresAt: null },
        });
        if (count)
          await w.event({
            taskId: item.taskId,
            workItemId: item.id,
            entityType: "lease",
            entityId: item.id,
            actor,
            type: LedgerEvent.leaseExpired,
            fromState: item.status,
            toState: item.status,
            reason: `${whose}; the item was already uncertain and reconciliation continues`,
            data: { leaseOwner: item.leaseOwner, processGone },
          });
        continue;
      }
      const diedWithWorker =
        !item.commitsEffect &&
        item.operationId === null &&
        item.mechanism === Mechanism.abortSignal &&
        (item.status === WorkItemStatus.cancelling || (item.status === WorkItemStatus.running && !!item.task.cancelRequestedAt));
      const maySubmitted = !diedWithWorker && (item.status !== WorkItemStatus.running || item.operationId !== null || item.checkpointPassedAt !== null);
      // A call that died with its worker after the Stop is not assumed stopped: a remote request (a model's generation)
      // may have finished at its service first (crash mode, seed 1919 #2). Uncertain: reconciliation asks its tool's
      // inspect(), and discards it, as before, when there is none (cancellation/steps/5-reconcile.ts cannotBeEstablished).
      const to = diedWithWorker
        ? item.partialComplete && item.partialResult != null
          ? WorkItemStatus.partial
          : WorkItemStatus.uncertain
        : maySubmitted
          ? WorkItemStatus.uncertain
          : item.task.cancelRequestedAt
            ? WorkItemStatus.cancelled
            : WorkItemStatus.queued;
      const moved = await casUpdate(w, {
        entity: "workItem",
        id: item.id,
        from: item.status,
        to,
        // Guarded by every fact the decision read: a checkpoint that passed (or a submission recorded) after the
        // read above makes this write miss, and the next pass decides again (never re-run what may have been sent).
        guard: { leaseToken: item.leaseToken, ...(maySubmitted || diedWithWorker ? {} : { checkpointPassedAt: null, operationId: null }) },
        data: {
          leaseToken: null,
          leaseOwner: null,
          leaseExpiresAt: null,
          ...(to === WorkItemStatus.uncertain
            ? { reconcileDeadline: new Date(now.getTime() + (options.reconcileWindowMs ?? DEFAULT_RECONCILE_WINDOW_MS)) }
            : {}),
          ...(to === WorkItemStatus.cancelled || to === WorkItemStatus.partial ? { finishedAt: now } : {}),
        },
        event: {
          taskId: item.taskId,
          workItemId: item.id,
          actor,
          type: LedgerEvent.leaseExpired,
          reason: diedWithWorker
            ? to === WorkItemStatus.partial
              ? `${whose} after the Stop; the call commits nothing and its complete partial result was reported: kept`
              : `${whose} after the Stop; the call commits nothing — whether its service finished it is asked (reconcile), else it is discarded`
            : maySubmitted
              ? `${whose} after it may have submitted an external action: reconcile, never re-run`
              : item.task.cancelRequestedAt
                ? `${whose} after the cancellation boundary; nothing was submitted`
                : `${whose} before any external submission: released for a retry`,
          data: { leaseOwner: item.leaseOwner, attempt: item.attempt, operationId: item.operationId, processGone },
        },
      });
      if (!moved) continue;
      (to === WorkItemStatus.queued ? result.requeued : to === WorkItemStatus.uncertain ? result.uncertain : result.cancelled).push(item.id);
    }
    // Process leases of workers gone for an hour, once none of their leases is left to recover, are forgotten (one row
    // per worker process ever started would otherwise accumulate; infrastructure, like the leases themselves).
    const forgotten = new Date(now.getTime() - 3_600_000);
    const stale = await w.tx.processLease.findMany({
      where: { name: { startsWith: WORKER_PROCESS_LEASE_PREFIX }, expiresAt: { lt: forgotten } },
      select: { name: true, owner: true },
      take: 100,
    });
    if (stale.length) {
      const holding = new Set(
        (
          await w.tx.workItem.findMany({ where: { leaseToken: { not: null }, leaseOwner: { in: stale.map((r) => r.owner) } }, select: { leaseOwner: true } })
        ).map((i) => i.leaseOwner),
      );
      const names = stale.filter((r) => !holding.has(r.owner)).map((r) => r.name);
      if (names.length) await w.tx.processLease.deleteMany({ where: { name: { in: names }, expiresAt: { lt: forgotten } } });
    }
    return result;
  });
}
