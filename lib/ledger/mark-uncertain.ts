import type { Database } from "../db/client";
import { WorkItemStatus } from "./states";
import { DEFAULT_RECONCILE_WINDOW_MS } from "./recover-expired-leases";
import { casUpdate, conflict, writeLedger } from "./write";
import { LedgerEvent } from "./events";

/**
 * The outcome of an accepted action is not known (the caller timed out, the cancel endpoint is down, the
 * worker lost track). It stays `uncertain` with a reconcile deadline until the service is asked (invariant
 * 3); it is never re-run to find out (invariant 5).
 */
export async function markUncertain(
  database: Database,
  input: {
    workItemId: string;
    from?: string;
    leaseToken?: string;
    reason: string;
    actor: string;
    reconcileWindowMs?: number;
    /** The engine marks an item uncertain while its worker may still be running: keep that worker's lease. */
    keepLease?: boolean;
  },
) {
  return writeLedger(database, async (w) => {
    await w.lockRow("workItem", input.workItemId);
    const item = await w.tx.workItem.findUniqueOrThrow({ where: { id: input.workItemId } });
    if (item.status === WorkItemStatus.uncertain) return item;
    const from = input.from ?? item.status;
    const now = await w.now();
    const moved = await casUpdate(w, {
      entity: "workItem",
      id: item.id,
      from,
      to: WorkItemStatus.uncertain,
      guard: input.leaseToken ? { leaseToken: input.leaseToken } : {},
      data: {
        ...(input.keepLease ? {} : { leaseToken: null, leaseOwner: null, leaseExpiresAt: null }),
        reconcileDeadline: new Date(now.getTime() + (input.reconcileWindowMs ?? DEFAULT_RECONCILE_WINDOW_MS)),
      },
      event: { taskId: item.taskId, workItemId: item.id, actor: input.actor, type: LedgerEvent.workItemUncertain, reason: input.reason },
    });
    if (!moved) throw conflict("workItem", item.id, from, item.status);
    return moved;
  });
}
