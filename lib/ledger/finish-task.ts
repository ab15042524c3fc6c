import type { Database } from "../db/client";
import type { Task } from "../db/generated/sqlite/client.ts";
import { AppError, ErrorCode } from "../errors";
import { LedgerEvent } from "./events";
import { ACTIVE_ITEM_STATUSES, TaskStage } from "./states";
import { casUpdate, writeLedger } from "./write";

export const TaskEnding = { completed: TaskStage.completed, failed: TaskStage.failed } as const;
export type TaskEnding = (typeof TaskEnding)[keyof typeof TaskEnding];

export interface FinishTaskInput {
  taskId: string;
  ending: TaskEnding;
  /** completed: an optional note; failed: why (required). */
  reason?: string | null;
  actor: string;
}

/**
 * The agent ends a task: `active → completed` (its work is done) or `active → failed` (it gave up). A task
 * ends only when no child of it is still active — a completed task has nothing running, so Stop on it answers
 * that nothing is running (cancellation/steps/1-record-boundary.ts) and never opens a review; undoing finished work is its own
 * request (lib/review/request-reversal.ts).
 *
 * Guarded: the task row is locked (PostgreSQL: FOR UPDATE, which waits for a claim or a schedule holding its
 * share lock, and makes them wait and then see the new stage) and the compare-and-set requires `active`, so a
 * child cannot be scheduled or claimed under a task that has ended. Repeating the same ending answers the
 * task as it is (`alreadyFinished`); a task that was stopped, or ended the other way, is a conflict.
 */
export async function finishTask(database: Database, input: FinishTaskInput): Promise<{ task: Task; alreadyFinished: boolean }> {
  if (input.ending === TaskEnding.failed && !input.reason?.trim()) {
    throw new AppError(ErrorCode.badRequest, "a failed task needs the reason it failed", { field: "error" });
  }
  return writeLedger(database, async (w) => {
    if (w.provider === "postgres") await w.tx.$queryRawUnsafe(`SELECT 1 FROM "Task" WHERE "id" = $1 FOR UPDATE`, input.taskId);
    const task = await w.tx.task.findUnique({ where: { id: input.taskId } });
    if (!task) throw new AppError(ErrorCode.notFound, `task ${input.taskId} not found`, { taskId: input.taskId });
    if (task.stage === input.ending) return { task, alreadyFinished: true };
    if (task.cancelRequestedAt) {
      throw new AppError(
        ErrorCode.cancelRequested,
        `task ${task.id} was stopped at ${task.cancelRequestedAt.toISOString()}; it ends as cancelled, not ${input.ending}`,
        {
          taskId: task.id,
          currentState: task.stage,
          cancelRequestedAt: task.cancelRequestedAt.toISOString(),
        },
      );
    }
    if (task.stage !== TaskStage.active) {
      throw new AppError(ErrorCode.conflict, `task ${task.id} already ended: it is "${task.stage}"`, { taskId: task.id, currentState: task.stage });
    }
    const active = await w.tx.workItem.findMany({
      where: { taskId: task.id, status: { in: ACTIVE_ITEM_STATUSES } },
      select: { id: true, toolName: true, status: true },
      take: 20,
    });
    if (active.length) {
      throw new AppError(
        ErrorCode.conflict,
        `task ${task.id} still has ${active.length} active ${active.length === 1 ? "child" : "children"} (${active.map((a) => `${a.toolName}: ${a.status}`).join(", ")}); a task ends when its children have`,
        {
          taskId: task.id,
          activeWorkItems: active.map((a) => a.id),
        },
      );
    }
    const now = await w.now();
    const reason = input.reason?.trim() || null;
    const event =
      input.ending === TaskEnding.completed
        ? { taskId: task.id, actor: input.actor, type: LedgerEvent.taskCompleted, reason, data: { note: reason } }
        : { taskId: task.id, actor: input.actor, type: LedgerEvent.taskFailed, reason, data: { error: reason! } };
    const moved = await casUpdate(w, {
      entity: "task",
      id: task.id,
      from: TaskStage.active,
      to: input.ending,
      guard: { cancelRequestedAt: null },
      data: { endedAt: now, endReason: input.ending === TaskEnding.failed ? reason : null },
      event,
    });
    if (!moved) throw new AppError(ErrorCode.conflict, `task ${task.id} changed while ending it; reload it`, { taskId: task.id });
    return { task: moved as unknown as Task, alreadyFinished: false };
  });
}
