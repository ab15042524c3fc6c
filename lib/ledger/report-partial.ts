import type { Database } from "../db/client";
import { loadLeasedItem, rejectStaleLease, type LeaseHolder } from "./lease";
import { isLeasedItem } from "./states";
import { writeLedger } from "./write";
import { LedgerEvent } from "./events";

/** The running code reports a partial result, and whether it vouches that it is a complete, valid subset. */
export async function reportPartial(database: Database, input: LeaseHolder & { result: unknown; complete: boolean; actor: string }) {
  return writeLedger(database, async (w) => {
    const item = await loadLeasedItem(w, input.workItemId);
    if (item.leaseToken !== input.leaseToken || !isLeasedItem(item.status)) return rejectStaleLease(w, item, input.leaseToken, "report partial", input.actor);
    await w.tx.workItem.updateMany({
      where: { id: item.id, leaseToken: input.leaseToken },
      data: { partialResult: input.result as never, partialComplete: input.complete },
    });
    await w.event({
      taskId: item.taskId,
      workItemId: item.id,
      entityType: "workItem",
      entityId: item.id,
      actor: input.actor,
      type: LedgerEvent.workItemPartialReported,
      data: { complete: input.complete },
    });
    return true;
  });
}
