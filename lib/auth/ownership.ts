import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { OWNER_SCOPED } from "./permissions";
import type { Principal } from "./tokens";

/**
 * Object-level authorization, in one place: a principal whose role is owner-scoped (a `user`) sees and
 * acts on only the tasks and conversations they own (Task.ownerId = their user id). Anything else is
 * answered exactly like a task that does not exist (404), so ids of other people's tasks reveal nothing.
 */
export const isOwnerScoped = (principal: Principal | null) => !!principal && OWNER_SCOPED.includes(principal.role);

/** The owner id a principal's new tasks get: a person's user id, a token's name (as before). */
export const ownerIdOf = (principal: Principal) => (principal.kind === "person" ? principal.id : principal.name);

/** The ownerId filter for list queries: the principal's own id when owner-scoped, else none. */
export const ownerScope = (principal: Principal | null): string | undefined =>
  principal && isOwnerScoped(principal) ? ownerIdOf(principal) : undefined;

/** 404 unless the principal may see this task. */
export async function assertTaskAccess(database: Database, principal: Principal | null, taskId: string): Promise<void> {
  if (!principal || !isOwnerScoped(principal)) return;
  const task = await database.prisma.task.findUnique({ where: { id: taskId }, select: { ownerId: true } });
  if (!task || task.ownerId !== ownerIdOf(principal)) throw new AppError(ErrorCode.notFound, `task ${taskId} not found`, { taskId });
}

/** Whether a conversation belongs to someone else (it has tasks, none of them the principal's). */
export async function conversationIsOthers(database: Database, principal: Principal | null, conversationId: string): Promise<boolean> {
  if (!principal || !isOwnerScoped(principal)) return false;
  const other = await database.prisma.task.findFirst({ where: { conversationId, NOT: { ownerId: ownerIdOf(principal) } }, select: { id: true } });
  return !!other;
}

/** 404 when the conversation is another person's. */
export async function assertConversationAccess(database: Database, principal: Principal | null, conversationId: string): Promise<void> {
  if (await conversationIsOthers(database, principal, conversationId)) {
    throw new AppError(ErrorCode.notFound, `conversation ${conversationId} not found`, { conversationId });
  }
}
