import { assertTokenNotQuarantinedIn, assertToolNotQuarantined } from "../incidents/quarantine";
import { assertParentMayStart } from "./schedule-work-item";
import { randomUUID } from "node:crypto";
import type { Database } from "../db/client";
import type { WorkItem } from "../db/generated/sqlite/client.ts";
import { AppError, ErrorCode } from "../errors";
import { refusalToProceed } from "./guards";
import { DEFAULT_LEASE_MS, newLeaseToken } from "./lease";
import type { ScheduleWorkItemInput } from "./schedule-work-item";
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
    // As in scheduleWorkItem: on PostgreSQL this share lock conflicts with the boundary's FOR UPDATE, so the guard
    // below and the inserts cannot straddle a Stop (lib/ledger/sql/boundary.ts).
    if (w.provider === "postgres") await w.tx.$queryRawUnsafe(`SELECT 1 FROM "Task" WHERE "id" = $1 FOR KEY SHARE`, input.taskId);
    const task = await w.tx.task.findUnique({ where: { id: input.taskId } });
    if (!task) throw new AppError(ErrorCode.notFound, `task ${input.taskId} not found`, { taskId: input.taskId });
    const refusal = refusalToProceed(task, { intentVersion: input.intentVersion, proposalVersion: input.proposalVersion });
    if (refusal) throw refusal;
    await assertToolNotQuarantined(w, input.toolName);
    if (input.tokenId) await assertTokenNotQuarantinedIn(w, input.tokenId);
    if (input.parentWorkItemId) {
      await assertParentMayStart(w, input.parentWorkItemId, task.id);
    }
    const correlationId = input.correlationId ?? randomUUID();
    const duplicate = await w.tx.workItem.findFirst({
      where: { OR: [{ taskId: task.id, correlationId }, ...(input.idempotencyKey ? [{ idempotencyKey: input.idempotencyKey }] : [])] },
      select: { id: true },
    });
    if (duplicate)
      throw new AppError(ErrorCode.conflict, `a work item with this correlation id or idempotency key already exists (${duplicate.id})`, {
        workItemId: duplicate.id,
      });

    const item = await w.tx.workItem.create({
      data: {
        taskId: task.id,
        parentWorkItemId: input.parentWorkItemId ?? null,
        kind: input.kind,
        toolName: input.toolName,
        mechanism: input.mechanism,
        commitsEffect: input.commitsEffect ?? false,
        correlationId,
        idempotencyKey: input.idempotencyKey ?? `${task.id}:${correlationId}`,
        preparedIntentVersion: input.intentVersion,
        proposalVersion: input.proposalVersion ?? null,
        input: (input.input ?? undefined) as never,
        status: WorkItemStatus.queued,
      },
    });
    await w.event({
      taskId: task.id,
      workItemId: item.id,
      entityType: "workItem",
      entityId: item.id,
      actor,
      type: LedgerEvent.workItemScheduled,
      toState: item.status,
      data: { toolName: item.toolName, kind: item.kind, mechanism: item.mechanism, inline: true },
    });
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
