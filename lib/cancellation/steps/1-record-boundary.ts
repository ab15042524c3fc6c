import { onEngine, type Database } from "../../db/client";
import { stopStep } from "../../observability/tracing";
import { AppError, ErrorCode } from "../../errors";
import { isTerminalTask, StopScope, TaskStage } from "../../ledger/states";
import { recordBoundariesOnPg, recordBoundaryOnSqlite, type BoundaryRequest } from "../../ledger/sql/boundary";
import { Coalescer, coalescerPerOwner, oncePerStatement } from "../../db/coalesce";
import { sendAgainIfTransient, type PgDirect } from "../../db/pg";
import { LedgerEvent } from "../../ledger/events";
import { casUpdate, conflict, writeLedger } from "../../ledger/write";

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
  | { kind: "already_finished"; taskId: string; stage: string; endedAt: Date | null; message: string };

/**
 * One coalescer per pool: the boundaries of Stops that arrive while one is being recorded are recorded together, in
 * one statement (each still its own compare-and-set with its event; each request answered after that commit). Two
 * Stops of the same task in one batch go in successive statements, so the second finds the first's boundary.
 */
const boundariesOf = coalescerPerOwner(
  (pg: PgDirect) =>
    new Coalescer(
      // A deadlock victim or a serialization failure committed nothing: sent again.
      (requests: BoundaryRequest[]) => oncePerStatement(requests, (once) => sendAgainIfTransient(() => recordBoundariesOnPg(pg, once))),
      { maxInFlight: 2 },
    ),
);

/**
 * Invariant 1: records the cancellation boundary on the task — intent version +1, `cancelRequestedAt`,
 * reason, one event — in one transaction, before any stop message goes out. From the commit on, claims,
 * new work items and checkpoints of this task are refused. A repeated request returns the first boundary
 * and changes nothing. A task that already finished has nothing to cancel.
 */
export const requestCancellation = (database: Database, input: Parameters<typeof recordCancellation>[1]) =>
  stopStep({ taskId: input.taskId }, "boundary", () => recordCancellation(database, input));
async function recordCancellation(
  database: Database,
  input: {
    taskId: string;
    reason?: string | null;
    actor: string /** Stable id of who asks (principalRef): the maker-checker compares it. */;
    actorId?: string | null;
    /** What the Stop is for (default: this task) — a conversation's, a person's, an incident's — and its id. */
    scope?: StopScope;
    scopeRef?: string | null;
  },
): Promise<CancellationRequestResult> {
  const request = {
    taskId: input.taskId,
    reason: input.reason ?? null,
    actor: input.actor,
    actorId: input.actorId ?? null,
    scope: input.scope ?? StopScope.task,
    scopeRef: input.scopeRef ?? null,
  };
  // One statement on the driver (both engines): the boundary must not wait behind anything it need not.
  const { task, recorded } = await onEngine(database, {
    sqlite: (direct) =>
      recordBoundaryOnSqlite(direct, request).then(({ task, recorded }) => ({
        task: task && { ...task, cancelRequestedAt: task.cancelRequestedAt ? new Date(task.cancelRequestedAt) : null },
        recorded,
      })),
    postgres: async (pg) => (await boundariesOf(pg).load(request))!,
  });
  if (!task) throw new AppError(ErrorCode.notFound, `task ${input.taskId} not found`, { taskId: input.taskId });
  if (!task.cancelRequestedAt && isTerminalTask(task.stage)) {
    // Nothing runs under an ended task: no boundary, no plan, no review item. Undoing what it did is its own
    // request (lib/review/request-reversal.ts), never a side effect of Stop.
    const ended = await database.prisma.task.findUnique({ where: { id: task.id }, select: { endedAt: true } });
    return { kind: "already_finished", taskId: task.id, stage: task.stage, endedAt: ended?.endedAt ?? null, message: alreadyFinishedMessage(task.stage) };
  }
  if (!task.cancelRequestedAt) throw conflict("task", task.id, TaskStage.active, task.stage);
  return { kind: "boundary", boundary: boundaryOf(task, !recorded) };
}

/**
 * A Stop for a conversation turn whose task does not exist yet (pressed right after Enter): the task is created
 * already carrying its boundary — `task.created` and `task.cancel_requested` in one transaction — so that when
 * the message arrives, the agent finds a stopped task and nothing of it ever starts (invariants 1 and 2).
 * `created: false` when the turn's task was created first by the message itself (the unique turn index
 * decides; on PostgreSQL the other insert waits for this transaction): the caller then records an ordinary
 * boundary on it.
 */
export async function createTaskBornStopped(
  database: Database,
  input: { conversationId: string; turnId: string; ownerId: string; title: string; reason: string | null; actor: string; actorId?: string | null },
): Promise<{ taskId: string; created: boolean }> {
  try {
    const taskId = await writeLedger(database, async (w) => {
      const task = await w.tx.task.create({
        data: { title: input.title, ownerId: input.ownerId, conversationId: input.conversationId, turnId: input.turnId, stage: TaskStage.active },
      });
      await w.event({
        taskId: task.id,
        entityType: "task",
        entityId: task.id,
        actor: input.actor,
        type: LedgerEvent.taskCreated,
        toState: task.stage,
        data: { title: task.title, conversationId: task.conversationId, riskLevel: task.riskLevel, turnId: task.turnId },
      });
      const now = await w.now();
      await casUpdate(w, {
        entity: "task",
        id: task.id,
        from: TaskStage.active,
        to: TaskStage.cancelRequested,
        data: {
          intentVersion: task.intentVersion + 1,
          cancelIntentVersion: task.intentVersion + 1,
          cancelRequestedAt: now,
          cancelReason: input.reason,
          cancelRequestedBy: input.actor,
          cancelRequestedById: input.actorId ?? null,
        },
        event: {
          taskId: task.id,
          actor: input.actor,
          type: LedgerEvent.taskCancelRequested,
          reason: input.reason,
          data: { intentVersion: task.intentVersion + 1, previousIntentVersion: task.intentVersion, bornStopped: true },
        },
      });
      return task.id;
    });
    return { taskId, created: true };
  } catch (error) {
    if ((error as { code?: string })?.code !== "P2002") throw error;
    const existing = await database.prisma.task.findUniqueOrThrow({
      where: { conversationId_turnId: { conversationId: input.conversationId, turnId: input.turnId } },
      select: { id: true },
    });
    return { taskId: existing.id, created: false };
  }
}

/** The plain answer to a Stop on a task that had already ended. */
export function alreadyFinishedMessage(stage: string): string {
  const how = stage === TaskStage.failed ? "had already failed" : "had already finished";
  return `Nothing to stop: this request ${how}, and nothing of it is running. Nothing was changed. To undo what it did, request a reversal.`;
}

function boundaryOf(
  task: {
    id: string;
    cancelIntentVersion: number | null;
    intentVersion: number;
    cancelRequestedAt: Date | null;
    cancelReason: string | null;
    cancelRequestedBy: string | null;
  },
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
