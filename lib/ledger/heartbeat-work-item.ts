import { onEngine, type Database } from "../db/client";
import { DEFAULT_LEASE_MS, loadLeasedItem, rejectStaleLease, type LeaseHolder } from "./lease";
import { stopRequested } from "./completion-rules";
import { heartbeatOnPg } from "./sql/heartbeat";
import { isLeasedItem, LEASED_ITEM_STATUSES } from "./states";
import { writeLedger } from "./write";

export interface HeartbeatResult {
  status: string;
  /** True once the task's cancellation boundary exists or a newer intent replaced the item's: stop now. */
  cancelRequested: boolean;
  intentVersion: number;
  leaseExpiresAt: Date;
}

/**
 * Extends the lease of the current holder and tells it whether to stop. Heartbeats are not state changes
 * and write no event — except a rejected one (stale token), which is recorded.
 */
export async function heartbeatWorkItem(database: Database, input: LeaseHolder & { leaseMs?: number; actor: string }): Promise<HeartbeatResult> {
  // On PostgreSQL one statement for the current holder; anything else (a stale token to record) takes the path below.
  const beat = await onEngine<Promise<Awaited<ReturnType<typeof heartbeatOnPg>> | null>>(database, {
    postgres: (pg) => heartbeatOnPg(pg, { workItemId: input.workItemId, leaseToken: input.leaseToken, leaseMs: input.leaseMs ?? DEFAULT_LEASE_MS }),
    sqlite: async () => null,
  });
  if (beat) return { status: beat.status, cancelRequested: stopRequested(beat, beat), intentVersion: beat.intentVersion, leaseExpiresAt: beat.leaseExpiresAt };
  return writeLedger(database, async (w) => {
    const item = await loadLeasedItem(w, input.workItemId);
    if (item.leaseToken !== input.leaseToken || !isLeasedItem(item.status)) {
      return rejectStaleLease(w, item, input.leaseToken, "heartbeat", input.actor);
    }
    const now = await w.now();
    const leaseExpiresAt = new Date(now.getTime() + (input.leaseMs ?? DEFAULT_LEASE_MS));
    // Guarded by the token: if the lease was taken over between the read and here, nothing is written.
    await w.tx.workItem.updateMany({
      where: { id: item.id, leaseToken: input.leaseToken, status: { in: LEASED_ITEM_STATUSES } },
      data: { heartbeatAt: now, leaseExpiresAt },
    });
    return {
      status: item.status,
      cancelRequested: stopRequested(item.task, item),
      intentVersion: item.task.intentVersion,
      leaseExpiresAt,
    };
  });
}
