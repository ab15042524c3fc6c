import type { Database } from "../db/client";
import { LedgerEvent } from "./events";
import { ProgressReport, type StoredProgress } from "./progress";
import { loadLeasedItem, rejectStaleLease, type LeaseHolder } from "./lease";
import { isLeasedItem, LEASED_ITEM_STATUSES } from "./states";
import { writeLedger } from "./write";

/**
 * Records the latest progress of a leased work item and appends a `work_item.progress` event, so the chat
 * and the console show it live. Only the lease holder of a running item may report; a stale token is
 * rejected and recorded like every other lease write.
 */
export async function reportProgress(database: Database, input: LeaseHolder & { progress: ProgressReport; actor: string }): Promise<StoredProgress> {
  const progress = ProgressReport.parse(input.progress);
  return writeLedger(database, async (w) => {
    const item = await loadLeasedItem(w, input.workItemId);
    if (item.leaseToken !== input.leaseToken || !isLeasedItem(item.status)) return rejectStaleLease(w, item, input.leaseToken, "report progress", input.actor);
    const stored: StoredProgress = { ...progress, at: (await w.now()).toISOString() };
    // Guarded by the token and the leased states: a takeover or a settlement between the read and here writes nothing.
    const { count } = await w.tx.workItem.updateMany({
      where: { id: item.id, leaseToken: input.leaseToken, status: { in: LEASED_ITEM_STATUSES } },
      data: { progress: stored as never },
    });
    if (count === 1) {
      await w.event({
        taskId: item.taskId,
        workItemId: item.id,
        entityType: "workItem",
        entityId: item.id,
        actor: input.actor,
        type: LedgerEvent.workItemProgress,
        data: stored,
      });
    }
    return stored;
  });
}
