import { randomUUID } from "node:crypto";
import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { assertTokenNotQuarantinedIn, assertToolNotQuarantined } from "../incidents/quarantine";
import { refusalToProceed } from "./guards";
import { WorkItemStatus, type Mechanism, type WorkItemKind } from "./states";
import { writeLedger, type Writer } from "./write";
import { LedgerEvent } from "./events";

export interface ScheduleWorkItemInput {
  taskId: string;
  kind: WorkItemKind;
  toolName: string;
  mechanism: Mechanism;
  /** The task intent version the caller prepared this item under. */
  intentVersion: number;
  proposalVersion?: number | null;
  commitsEffect?: boolean;
  correlationId?: string;
  idempotencyKey?: string;
  parentWorkItemId?: string | null;
  input?: unknown;
}

/** Schedules a child under a task. Refused (409) once the boundary exists or when the intent is stale. */
export async function scheduleWorkItem(database: Database, input: ScheduleWorkItemInput, actor: string) {
  try {
    return await insertWorkItem(database, input, actor);
  } catch (error) {
    // Two schedules of the same correlation id / idempotency key at once: the unique index decides.
    if ((error as { code?: string })?.code !== "P2002") throw error;
    const winner = await database.prisma.workItem.findFirst({
      where: {
        OR: [{ taskId: input.taskId, correlationId: input.correlationId ?? "" }, ...(input.idempotencyKey ? [{ idempotencyKey: input.idempotencyKey }] : [])],
      },
      select: { id: true },
    });
    throw new AppError(ErrorCode.conflict, `a work item with this correlation id or idempotency key already exists${winner ? ` (${winner.id})` : ""}`, {
      workItemId: winner?.id ?? null,
    });
  }
}

async function insertWorkItem(database: Database, input: ScheduleWorkItemInput, actor: string) {
  return writeLedger(database, async (w) => (await insertQueuedWorkItem(w, input, actor)).item);
}

/**
 * The one way a child enters the ledger (scheduleWorkItem, and startWorkItem before it leases the child): the task's
 * guard (boundary, intent and proposal versions), the kill switch, the parent, a duplicate correlation id or
 * idempotency key — then the queued row and its `work_item.scheduled` event, in the caller's transaction.
 * `tokenId`: the API token the work is for, refused while a kill switch quarantines it. `eventData`: added to the event.
 */
export async function insertQueuedWorkItem(
  w: Writer,
  input: ScheduleWorkItemInput,
  actor: string,
  extra: { tokenId?: string | null; eventData?: Record<string, unknown> } = {},
) {
  // The guard and the insert must not straddle a boundary. PostgreSQL: this share lock conflicts with the
  // boundary's FOR UPDATE (sql/boundary.ts) — either the boundary waits for this insert (and then removes the
  // new child from dispatch) or this waits for the boundary and sees it below. SQLite: one writer at a time.
  if (w.provider === "postgres") await w.tx.$queryRawUnsafe(`SELECT 1 FROM "Task" WHERE "id" = $1 FOR KEY SHARE`, input.taskId);
  const task = await w.tx.task.findUnique({ where: { id: input.taskId } });
  if (!task) throw new AppError(ErrorCode.notFound, `task ${input.taskId} not found`, { taskId: input.taskId });
  const refusal = refusalToProceed(task, { intentVersion: input.intentVersion, proposalVersion: input.proposalVersion });
  if (refusal) throw refusal;
  await assertToolNotQuarantined(w, input.toolName);
  if (extra.tokenId) await assertTokenNotQuarantinedIn(w, extra.tokenId);
  if (input.parentWorkItemId) await assertParentMayStart(w, input.parentWorkItemId, task.id);
  const correlationId = input.correlationId ?? randomUUID();
  const duplicate = await w.tx.workItem.findFirst({
    where: { OR: [{ taskId: task.id, correlationId }, ...(input.idempotencyKey ? [{ idempotencyKey: input.idempotencyKey }] : [])] },
    select: { id: true },
  });
  if (duplicate) {
    throw new AppError(ErrorCode.conflict, `a work item with this correlation id or idempotency key already exists (${duplicate.id})`, {
      workItemId: duplicate.id,
    });
  }
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
    data: { toolName: item.toolName, kind: item.kind, mechanism: item.mechanism, ...extra.eventData },
  });
  return { task, item };
}

/**
 * A new child under `parentId` may start only if the parent belongs to the task and was not stopped (a scoped
 * Stop, request-child-cancellation.ts: nothing new starts under a stopped step). PostgreSQL: the parent's row is
 * share-locked, so the Stop (which locks it FOR UPDATE) and this insert do not straddle each other.
 */
export async function assertParentMayStart(w: Writer, parentId: string, taskId: string) {
  if (w.provider === "postgres") await w.tx.$queryRawUnsafe(`SELECT 1 FROM "WorkItem" WHERE "id" = $1 FOR KEY SHARE`, parentId);
  const parent = await w.tx.workItem.findFirst({ where: { id: parentId, taskId }, select: { id: true, stopRequestedAt: true } });
  if (!parent) throw new AppError(ErrorCode.badRequest, `parent work item ${parentId} is not a child of task ${taskId}`, { field: "parentWorkItemId" });
  if (parent.stopRequestedAt) {
    throw new AppError(ErrorCode.cancelRequested, `its parent step was stopped at ${parent.stopRequestedAt.toISOString()}; nothing new may start under it`, {
      workItemId: parent.id,
      stopRequestedAt: parent.stopRequestedAt.toISOString(),
    });
  }
}
