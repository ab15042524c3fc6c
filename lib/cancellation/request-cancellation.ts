import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { isTerminalTask, TaskStage } from "../ledger/states";
import { recordBoundaryOnSqlite } from "../ledger/sqlite-hot-path";
import { casUpdate, conflict, writeLedger } from "../ledger/write";

export interface CancellationBoundary {
  taskId: string;
  /** The intent version the boundary created; every work item prepared under an older one is stale. */
  intentVersion: number;
  cancelRequestedAt: Date;
  reason: string | null;
  requestedBy: string | null;
  /** True when this request found the boundary already recorded (Stop is idempotent, invariant 7). */
  alreadyRequested: boolean;
}

export type CancellationRequestResult =
  | { kind: "boundary"; boundary: CancellationBoundary }
  | { kind: "already_finished"; taskId: string; stage: string };

/**
 * Invariant 1: records the cancellation boundary on the task — intent version +1, `cancelRequestedAt`,
 * reason, one event — in one transaction, before any stop message goes out. From the commit on, claims,
 * new work items and checkpoints of this task are refused. A repeated request returns the first boundary
 * and changes nothing. A task that already finished has nothing to cancel.
 */
export async function requestCancellation(
  database: Database,
  input: { taskId: string; reason?: string | null; actor: string; /** Stable id of who asks (principalRef): the maker-checker compares it. */ actorId?: string | null },
): Promise<CancellationRequestResult> {
  if (database.sqlite) {
    const { task, recorded } = await recordBoundaryOnSqlite(database.sqlite, { taskId: input.taskId, reason: input.reason ?? null, actor: input.actor, actorId: input.actorId ?? null });
    if (!task) throw new AppError(ErrorCode.notFound, `task ${input.taskId} not found`, { taskId: input.taskId });
    if (!task.cancelRequestedAt && isTerminalTask(task.stage)) return { kind: "already_finished", taskId: task.id, stage: task.stage };
    if (!task.cancelRequestedAt) throw conflict("task", task.id, TaskStage.active, task.stage);
    return { kind: "boundary", boundary: boundaryOf({ ...task, cancelRequestedAt: new Date(task.cancelRequestedAt) }, !recorded) };
  }
  return writeLedger(database, async (w) => {
    const task = await w.tx.task.findUnique({ where: { id: input.taskId } });
    if (!task) throw new AppError(ErrorCode.notFound, `task ${input.taskId} not found`, { taskId: input.taskId });
    if (task.cancelRequestedAt) return { kind: "boundary", boundary: boundaryOf(task, true) };
    if (isTerminalTask(task.stage)) return { kind: "already_finished", taskId: task.id, stage: task.stage };

    const cancelRequestedAt = await w.now();
    const intentVersion = task.intentVersion + 1;
    const recorded = await casUpdate(w, {
      entity: "task",
      id: task.id,
      from: TaskStage.active,
      to: TaskStage.cancelRequested,
      guard: { rowVersion: task.rowVersion, cancelRequestedAt: null },
      data: {
        intentVersion,
        cancelIntentVersion: intentVersion,
        cancelRequestedAt,
        cancelReason: input.reason ?? null,
        cancelRequestedBy: input.actor,
        cancelRequestedById: input.actorId ?? null,
      },
      event: {
        taskId: task.id, actor: input.actor, type: "task.cancel_requested", reason: input.reason ?? null,
        data: { intentVersion, previousIntentVersion: task.intentVersion },
      },
    });
    if (!recorded) throw conflict("task", task.id, TaskStage.active, task.stage);
    const after = await w.tx.task.findUniqueOrThrow({ where: { id: task.id } });
    return { kind: "boundary", boundary: boundaryOf(after, false) };
  });
}

function boundaryOf(
  task: { id: string; cancelIntentVersion: number | null; intentVersion: number; cancelRequestedAt: Date | null; cancelReason: string | null; cancelRequestedBy: string | null },
  alreadyRequested: boolean,
): CancellationBoundary {
  return {
    taskId: task.id,
    intentVersion: task.cancelIntentVersion ?? task.intentVersion,
    cancelRequestedAt: task.cancelRequestedAt!,
    reason: task.cancelReason,
    requestedBy: task.cancelRequestedBy,
    alreadyRequested,
  };
}
