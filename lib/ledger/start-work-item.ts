import type { Database } from "../db/client";
import type { WorkItem } from "../db/generated/sqlite/client.ts";
import { AppError, ErrorCode } from "../errors";
import { DEFAULT_LEASE_MS, newLeaseToken } from "./lease";
import { insertQueuedWorkItem, type ScheduleWorkItemInput } from "./schedule-work-item";
import { WorkItemStatus } from "./states";
import { casUpdate, writeLedger } from "./write";
import { LedgerEvent } from "./events";

export interface StartWorkItemInput extends ScheduleWorkItemInput {
  /** The lease owner: the process that runs the call itself (an agent loop, the MCP gateway). */
  workerId: string;
  leaseMs?: number;
  /** The API token the work is started for (the MCP gateway's client): refused while a kill switch quarantines it. */
  tokenId?: string | null;
}

/**
 * Schedules a child AND leases it to the caller in one transaction: for work the caller runs itself, inline
 * (an AI SDK tool call inside an agent's loop, a tools/call the MCP gateway forwards). No pool can claim it in
 * between, and the same guard as every schedule and claim applies (invariant 2): refused once the task's
 * boundary exists or when the intent is stale. The item is then reported through the lease protocol like any
 * claimed item (heartbeat, checkpoint, submitted, complete).
 */
export async function startWorkItem(database: Database, input: StartWorkItemInput, actor: string): Promise<WorkItem> {
  const leaseMs = input.leaseMs ?? DEFAULT_LEASE_MS;
  return writeLedger(database, async (w) => {
    // The same guard and insert as every schedule (insertQueuedWorkItem), then the lease — one transaction.
    const { task, item } = await insertQueuedWorkItem(w, input, actor, { tokenId: input.tokenId, eventData: { inline: true } });
    const now = await w.now();
    const leaseExpiresAt = new Date(now.getTime() + leaseMs);
    const started = await casUpdate(w, {
      entity: "workItem",
      id: item.id,
      from: WorkItemStatus.queued,
      to: WorkItemStatus.running,
      guard: { preparedIntentVersion: task.intentVersion },
      data: { leaseOwner: input.workerId, leaseToken: newLeaseToken(), leaseExpiresAt, heartbeatAt: now, startedAt: now, attempt: { increment: 1 } },
      event: {
        taskId: task.id,
        workItemId: item.id,
        actor: `worker:${input.workerId}`,
        type: LedgerEvent.workItemClaimed,
        data: { attempt: 1, leaseExpiresAt: leaseExpiresAt.toISOString(), inline: true },
      },
    });
    if (!started) throw new AppError(ErrorCode.conflict, `work item ${item.id} could not be started`, { workItemId: item.id });
    return started as unknown as WorkItem;
  });
}
