import { pgOf, type Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { isTerminalTask, TaskStage } from "../ledger/states";
import { recordBoundaryOnPg } from "../ledger/pg-hot-path";
import { recordBoundaryOnSqlite } from "../ledger/sqlite-hot-path";
import { conflict } from "../ledger/write";

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
  const request = { taskId: input.taskId, reason: input.reason ?? null, actor: input.actor, actorId: input.actorId ?? null };
  // One statement on the driver (both engines): the boundary must not wait behind anything it need not.
  const { task, recorded } = database.sqlite
    ? await recordBoundaryOnSqlite(database.sqlite, request).then(({ task, recorded }) => ({ task: task && { ...task, cancelRequestedAt: task.cancelRequestedAt ? new Date(task.cancelRequestedAt) : null }, recorded }))
    : await recordBoundaryOnPg(pgOf(database), request);
  if (!task) throw new AppError(ErrorCode.notFound, `task ${input.taskId} not found`, { taskId: input.taskId });
  if (!task.cancelRequestedAt && isTerminalTask(task.stage)) return { kind: "already_finished", taskId: task.id, stage: task.stage };
  if (!task.cancelRequestedAt) throw conflict("task", task.id, TaskStage.active, task.stage);
  return { kind: "boundary", boundary: boundaryOf(task, !recorded) };
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
