import type { Database } from "../db/client";
import { WorkItemStatus } from "../ledger/states";
import { logStep } from "./step-log";

/**
 * Records (or clears) that an uncertain call with no worker still runs at its service — the fact that keeps what it
 * holds "held by running work" instead of cleaning it up under the call. Guarded: only an uncertain item whose lease
 * is gone is marked (a terminal one is cleaned up as usual). Returns whether the item now carries the mark.
 */
export async function markServiceRunning(database: Database, item: { id: string; taskId: string }, running: boolean): Promise<boolean> {
  const now = new Date();
  const marked = await database.prisma.workItem.updateMany({
    where: { id: item.id, status: WorkItemStatus.uncertain, leaseToken: null, ...(running ? {} : { serviceRunningAt: { not: null } }) },
    data: { serviceRunningAt: running ? now : null },
  });
  if (marked.count && running)
    await logStep(database, {
      taskId: item.taskId,
      workItemId: item.id,
      action: "verify_release",
      success: false,
      detail: "the call still runs at its service: what it holds stays held by it, released and verified once it ends",
    });
  return running && marked.count > 0;
}
