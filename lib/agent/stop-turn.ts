import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { createTaskBornStopped, requestCancellation, type CancellationRequestResult } from "../cancellation/steps/1-record-boundary";

/** The title of a task born stopped when the Stop did not say what the message was. */
export const UNSENT_TITLE = "(stopped before the agent received the message)";

/**
 * Stop, named by the turn (the id the chat gave its message) rather than by a task id: a Stop pressed right
 * after Enter reaches the ledger before the agent's task exists. If the turn has a task, this is an ordinary
 * Stop of it; if not, the task is created already stopped (cancellation/steps/1-record-boundary.ts createTaskBornStopped), and
 * the message, when it arrives, finds it and starts nothing (conversation.ts startTurn).
 */
export async function stopTurn(
  database: Database,
  input: {
    conversationId: string;
    turnId: string;
    ownerId: string;
    text?: string | null;
    reason?: string | null;
    actor: string;
    actorId?: string | null;
    mayStopOthers: boolean;
  },
): Promise<CancellationRequestResult> {
  const key = { conversationId_turnId: { conversationId: input.conversationId, turnId: input.turnId } };
  let task = await database.prisma.task.findUnique({ where: key, select: { id: true, ownerId: true } });
  let born = false;
  if (!task) {
    const made = await createTaskBornStopped(database, {
      conversationId: input.conversationId,
      turnId: input.turnId,
      ownerId: input.ownerId,
      title: input.text?.trim().slice(0, 200) || UNSENT_TITLE,
      reason: input.reason ?? null,
      actor: input.actor,
      actorId: input.actorId ?? null,
    });
    born = made.created;
    task = await database.prisma.task.findUniqueOrThrow({ where: { id: made.taskId }, select: { id: true, ownerId: true } });
  }
  if (task.ownerId !== input.ownerId && !input.mayStopOthers) {
    throw new AppError(ErrorCode.notFound, `conversation ${input.conversationId} not found`, { conversationId: input.conversationId });
  }
  const result = await requestCancellation(database, { taskId: task.id, reason: input.reason ?? null, actor: input.actor, actorId: input.actorId ?? null });
  // The boundary this request recorded when it created the task is this request's own, not a repeat.
  return born && result.kind === "boundary" ? { ...result, boundary: { ...result.boundary, alreadyRequested: false } } : result;
}
