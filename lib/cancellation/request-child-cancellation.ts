import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { LedgerEvent } from "../ledger/events";
import { isTerminalItem, WorkItemStatus } from "../ledger/states";
import { casUpdate, writeLedger, type Writer } from "../ledger/write";

export interface ChildStopBoundary {
  workItemId: string;
  taskId: string;
  stopRequestedAt: Date;
  reason: string | null;
  requestedBy: string | null;
  /** The stopped child's descendants (which the Stop covers too). */
  descendants: number;
  /** True when this request found the child's boundary already recorded (a repeat changes nothing). */
  alreadyRequested: boolean;
}

export type ChildStopResult =
  | { kind: "boundary"; boundary: ChildStopBoundary }
  | { kind: "already_finished"; workItemId: string; taskId: string; status: string; message: string };

/**
 * A Stop of ONE child and its descendants while the rest of the task goes on (issue 13, scoped Stop) — the task's
 * boundary rules at the child's scope, recorded in one transaction before anything is sent (invariant 1):
 * - the child and every descendant get `stopRequestedAt` (and `stopRootId`: the child that was stopped), with one
 *   `work_item.stop_requested` event on the child naming them;
 * - the queued ones among them leave dispatch in the same transaction (`queued → cancelled`, each with its event):
 *   they never start (invariant 2);
 * - from the commit on, a checkpoint of any of them is refused (checkpoint-work-item.ts, sql/checkpoint.ts),
 *   and no new child may be scheduled under any of them (schedule-work-item.ts).
 * The running ones are then stopped by the engine through their mechanisms (execute-child-cancellation.ts), with
 * the same reconciliation, verification and review as a task's Stop. A repeat returns the first boundary.
 *
 * Race with a claim: the rows are locked first (PostgreSQL `FOR UPDATE`, which a claim's update waits for; SQLite:
 * one writer), so a queued child is either claimed before (and then stopped as a running child) or removed here.
 */
export async function requestChildCancellation(database: Database, input: ChildStopInput): Promise<ChildStopResult> {
  return writeLedger(database, (w) => recordChildStopIn(w, input));
}

export interface ChildStopInput {
  workItemId: string;
  reason?: string | null;
  actor: string;
  actorId?: string | null;
  /** The incident whose kill switch asks for this Stop (lib/incidents), if that is why. */
  incidentId?: string | null;
}

/** The child's boundary inside a ledger transaction (an incident records many in its own). */
export async function recordChildStopIn(w: Writer, input: ChildStopInput): Promise<ChildStopResult> {
  const root = await w.tx.workItem.findUnique({ where: { id: input.workItemId }, select: { id: true, taskId: true } });
  if (!root) throw new AppError(ErrorCode.notFound, `work item ${input.workItemId} not found`, { workItemId: input.workItemId });
  // Lock the task's children (the subtree is read from them): a claim, a checkpoint or a schedule under one of
  // them waits for this transaction, then sees the boundary.
  if (w.provider === "postgres") await w.tx.$queryRawUnsafe(`SELECT 1 FROM "WorkItem" WHERE "taskId" = $1 ORDER BY "id" FOR UPDATE`, root.taskId);
  const all = await w.tx.workItem.findMany({
    where: { taskId: root.taskId },
    select: { id: true, parentWorkItemId: true, status: true, stopRequestedAt: true, stopReason: true, stopRequestedBy: true, stopRootId: true },
  });
  const subtree = subtreeOf(root.id, all);
  const self = subtree[0];
  if (self.stopRequestedAt) {
    const stopRoot = all.find((i) => i.id === (self.stopRootId ?? self.id)) ?? self;
    return {
      kind: "boundary" as const,
      boundary: {
        workItemId: stopRoot.id,
        taskId: root.taskId,
        stopRequestedAt: stopRoot.stopRequestedAt ?? self.stopRequestedAt,
        reason: stopRoot.stopReason,
        requestedBy: stopRoot.stopRequestedBy,
        descendants: subtreeOf(stopRoot.id, all).length - 1,
        alreadyRequested: true,
      },
    };
  }
  if (subtree.every((i) => isTerminalItem(i.status))) {
    return {
      kind: "already_finished" as const,
      workItemId: root.id,
      taskId: root.taskId,
      status: self.status,
      message: "Nothing to stop: this step had already ended, and nothing under it is running. Nothing was changed.",
    };
  }
  const now = await w.now();
  const stop = {
    stopRequestedAt: now,
    stopReason: input.reason ?? null,
    stopRequestedBy: input.actor,
    stopRequestedById: input.actorId ?? null,
    stopRootId: root.id,
    stopIncidentId: input.incidentId ?? null,
  };
  let removed = 0;
  for (const item of subtree) {
    if (item.status === WorkItemStatus.queued) {
      const moved = await casUpdate(w, {
        entity: "workItem",
        id: item.id,
        from: WorkItemStatus.queued,
        to: WorkItemStatus.cancelled,
        data: { ...stop, finishedAt: now },
        event: {
          taskId: root.taskId,
          workItemId: item.id,
          actor: input.actor,
          type: LedgerEvent.workItemRemovedFromDispatch,
          reason: `never started: its step was stopped at ${now.toISOString()}`,
        },
      });
      if (moved) {
        removed++;
        continue;
      }
    }
    await w.tx.workItem.updateMany({ where: { id: item.id, stopRequestedAt: null }, data: stop });
  }
  await w.event({
    taskId: root.taskId,
    workItemId: root.id,
    entityType: "workItem",
    entityId: root.id,
    actor: input.actor,
    type: LedgerEvent.workItemStopRequested,
    reason: input.reason ?? null,
    data: { scope: "work_item", descendantIds: subtree.slice(1).map((i) => i.id), removedFromDispatch: removed },
  });
  return {
    kind: "boundary" as const,
    boundary: {
      workItemId: root.id,
      taskId: root.taskId,
      stopRequestedAt: now,
      reason: stop.stopReason,
      requestedBy: input.actor,
      descendants: subtree.length - 1,
      alreadyRequested: false,
    },
  };
}

/** The child and its descendants (by parentWorkItemId), the child first. */
export function subtreeOf<T extends { id: string; parentWorkItemId: string | null }>(rootId: string, items: T[]): T[] {
  const byParent = new Map<string, T[]>();
  for (const i of items) if (i.parentWorkItemId) byParent.set(i.parentWorkItemId, [...(byParent.get(i.parentWorkItemId) ?? []), i]);
  const root = items.find((i) => i.id === rootId);
  if (!root) return [];
  const out: T[] = [root];
  for (let k = 0; k < out.length; k++) for (const c of byParent.get(out[k].id) ?? []) if (!out.includes(c)) out.push(c);
  return out;
}
