import type { Database } from "../db/client";
import type { WorkItem } from "../db/generated/sqlite/client.ts";
import { DEFAULT_LEASE_MS, newLeaseToken } from "./lease";
import { claimOnSqlite } from "./sqlite-hot-path";
import { TaskStage, WorkItemStatus } from "./states";
import { casUpdate, writeLedger } from "./write";

export interface ClaimInput {
  workerId: string;
  /** Only claim items of these tools (a worker serves the tools it has). */
  toolNames?: string[];
  leaseMs?: number;
}

/**
 * Claims the oldest queued item whose task may still start work, with a fresh fencing token and a lease
 * expiry judged by the database clock. Returns null when there is nothing to claim.
 *
 * The claim is a compare-and-set on the item's status AND the task's stage and intent version (invariant 2):
 * an item of a task that has passed its cancellation boundary, or that was prepared under an older intent,
 * is never started — whatever a worker believed when it asked.
 */
export async function claimWorkItem(database: Database, input: ClaimInput): Promise<WorkItem | null> {
  const leaseMs = input.leaseMs ?? DEFAULT_LEASE_MS;
  if (database.sqlite) return claimOnSqlite(database.sqlite, { ...input, leaseMs, leaseToken: newLeaseToken() });
  return writeLedger(database, async (w) => {
    const now = await w.now();
    const candidates = await w.tx.workItem.findMany({
      where: {
        status: WorkItemStatus.queued,
        ...(input.toolNames ? { toolName: { in: input.toolNames } } : {}),
        task: { stage: TaskStage.active, cancelRequestedAt: null },
      },
      include: { task: { select: { intentVersion: true } } },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: 5,
    });
    for (const candidate of candidates) {
      if (candidate.preparedIntentVersion !== candidate.task.intentVersion) continue; // stale: the engine cancels it
      const leaseToken = newLeaseToken();
      const won = await casUpdate(w, {
        entity: "workItem",
        id: candidate.id,
        from: WorkItemStatus.queued,
        to: WorkItemStatus.running,
        guard: {
          preparedIntentVersion: candidate.task.intentVersion,
          task: { is: { stage: TaskStage.active, cancelRequestedAt: null, intentVersion: candidate.task.intentVersion } },
        },
        data: {
          leaseOwner: input.workerId,
          leaseToken,
          leaseExpiresAt: new Date(now.getTime() + leaseMs),
          heartbeatAt: now,
          startedAt: candidate.startedAt ?? now,
          attempt: { increment: 1 },
        },
        event: {
          taskId: candidate.taskId, workItemId: candidate.id, actor: `worker:${input.workerId}`,
          type: "work_item.claimed", data: { attempt: candidate.attempt + 1, leaseExpiresAt: new Date(now.getTime() + leaseMs).toISOString() },
        },
      });
      if (won) return won as unknown as WorkItem;
    }
    return null;
  });
}
