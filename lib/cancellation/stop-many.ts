import type { Database } from "../db/client";
import { type StopScope, TaskStage } from "../ledger/states";
import { requestCancellation, type CancellationBoundary } from "./steps/1-record-boundary";

/** What a Stop of many tasks answers: each task it reached, with the boundary recorded (or found) on it. */
export interface ManyStopResult {
  scope: { kind: StopScope; ref: string };
  /** Tasks this request recorded a boundary on, and tasks that already had one (a repeat changes nothing). */
  boundaries: CancellationBoundary[];
  /** Tasks that ended meanwhile (between the read and their boundary): nothing of them runs. */
  alreadyFinished: string[];
}

/**
 * Stops every task still active in `where` — one ordinary boundary per task (invariant 1, each recorded with the
 * Stop's scope), so each task then goes through the engine's pass exactly like its own Stop: the same plan,
 * reconciliation, verification and review, and its summary names the scope. Tasks that already had a boundary
 * are returned as they are (idempotent, invariant 7); tasks that had ended are left alone.
 *
 * What it does NOT guarantee: a task created after the read is not covered (a new message after the Stop is new
 * work the person asked for). The read and each boundary are separate statements; each boundary alone is atomic.
 */
export async function stopMany(
  database: Database,
  input: {
    scope: typeof StopScope.conversation | typeof StopScope.person | typeof StopScope.incident;
    ref: string;
    where: { conversationId?: string; ownerId?: string; ids?: string[]; createdBy?: TokenWork };
    reason?: string | null;
    actor: string;
    actorId?: string | null;
  },
): Promise<ManyStopResult> {
  const tasks = await database.prisma.task.findMany({
    where: {
      stage: { in: [TaskStage.active, TaskStage.cancelRequested] },
      ...(input.where.conversationId ? { conversationId: input.where.conversationId } : {}),
      ...(input.where.ownerId ? { ownerId: input.where.ownerId } : {}),
      ...(input.where.ids ? { id: { in: input.where.ids } } : {}),
      ...(input.where.createdBy ? createdByToken(input.where.createdBy) : {}),
    },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { id: true },
  });
  const result: ManyStopResult = { scope: { kind: input.scope, ref: input.ref }, boundaries: [], alreadyFinished: [] };
  for (const t of tasks) {
    const answer = await requestCancellation(database, {
      taskId: t.id,
      reason: input.reason,
      actor: input.actor,
      actorId: input.actorId,
      scope: input.scope,
      scopeRef: input.ref,
    });
    if (answer.kind === "boundary") result.boundaries.push(answer.boundary);
    else result.alreadyFinished.push(answer.taskId);
  }
  return result;
}

/** An API token's work: the tasks it created (`createdById`), whoever they are for. */
export interface TokenWork {
  ref: string;
  /** The token's name: tasks from before `createdById` was recorded are matched by their owner, as then. */
  name: string;
}

/** The tasks of a token (a Prisma where clause), for a kill switch on it and its sweep. */
export const createdByToken = (work: TokenWork) => ({ OR: [{ createdById: work.ref }, { createdById: null, ownerId: work.name }] });
