import type { Database } from "../db/client";
import { LedgerEvent } from "../ledger/events";
import { writeLedger } from "../ledger/write";
import { ENGINE_ACTOR } from "./step-log";

/** How long a dispatched cancel counts as in flight: a run that crashed mid-call must not block its child for ever. */
export const CANCEL_IN_FLIGHT_MS = 60_000;

/**
 * The fence "one provider cancel (or rollback) per child": a guarded write that only one engine run wins —
 * none was dispatched yet, or the last one failed (it may be tried again), or it was dispatched so long ago
 * without an answer that its run must have died. The caller sends the cancel only when this returns true.
 */
export async function claimDispatch(database: Database, item: { id: string; taskId: string }, action: string): Promise<boolean> {
  return writeLedger(database, async (w) => {
    const now = await w.now();
    const { count } = await w.tx.workItem.updateMany({
      where: {
        id: item.id,
        OR: [
          { cancelDispatchedAt: null },
          { cancelAnsweredAt: { not: null }, cancelWithdrawnAt: null },
          { cancelAnsweredAt: null, cancelDispatchedAt: { lt: new Date(now.getTime() - CANCEL_IN_FLIGHT_MS) } },
        ],
      },
      data: { cancelDispatchedAt: now, cancelDispatchAction: action, cancelAnsweredAt: null },
    });
    if (!count) return false;
    await w.event({
      taskId: item.taskId,
      workItemId: item.id,
      entityType: "workItem",
      entityId: item.id,
      actor: ENGINE_ACTOR,
      type: LedgerEvent.cancellationDispatched,
      data: { action },
    });
    return true;
  });
}

/**
 * The dispatched cancel answered. Acknowledged (`withdrawn`): from now on the service's "not committed" is
 * final. Recorded before the step that reports it, so that whoever sees the step also sees the withdrawal.
 */
export async function recordCancelAnswer(database: Database, item: { id: string; taskId: string }, acknowledged: boolean) {
  await writeLedger(database, async (w) => {
    const now = await w.now();
    await w.tx.workItem.updateMany({ where: { id: item.id }, data: { cancelAnsweredAt: now, ...(acknowledged ? { cancelWithdrawnAt: now } : {}) } });
    if (acknowledged)
      await w.event({
        taskId: item.taskId,
        workItemId: item.id,
        entityType: "workItem",
        entityId: item.id,
        actor: ENGINE_ACTOR,
        type: LedgerEvent.cancellationWithdrawn,
      });
  });
}
