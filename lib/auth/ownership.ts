import type { Database } from "../db/client";
import { LedgerEvent } from "../ledger/events";
import { AppError, ErrorCode } from "../errors";
import { OWNER_SCOPED } from "./permissions";
import { archivedTaskError } from "../retention/archived-task";
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
export const ownerScope = (principal: Principal | null): string | undefined => (principal && isOwnerScoped(principal) ? ownerIdOf(principal) : undefined);

/** 404 unless the principal may see this task. */
export async function assertTaskAccess(database: Database, principal: Principal | null, taskId: string): Promise<void> {
  if (!principal || !isOwnerScoped(principal)) return;
  const task = await database.prisma.task.findUnique({ where: { id: taskId }, select: { ownerId: true } });
  if (!task)
    throw (
      (await archivedTaskError(database, taskId, { withPath: false, ownerId: ownerIdOf(principal) })) ??
      new AppError(ErrorCode.notFound, `task ${taskId} not found`, { taskId })
    );
  if (task.ownerId !== ownerIdOf(principal)) throw new AppError(ErrorCode.notFound, `task ${taskId} not found`, { taskId });
}

/**
 * Who a conversation belongs to: the owner of its first task (null while it has none). Conversations have no
 * row of their own; the person who started one owns it, whoever acts in it later.
 */
export async function conversationOwner(database: Database, conversationId: string): Promise<string | null> {
  const earliest = await database.prisma.task.findMany({
    where: { conversationId },
    orderBy: { createdAt: "asc" },
    take: 5,
    select: { id: true, ownerId: true, createdAt: true },
  });
  if (!earliest.length) return null;
  const tied = earliest.filter((t) => t.createdAt.getTime() === earliest[0].createdAt.getTime());
  if (tied.length === 1 || tied.every((t) => t.ownerId === tied[0].ownerId)) return tied[0].ownerId;
  // Created in the same millisecond: the ledger's event order decides which came first.
  const created = await database.prisma.ledgerEvent.findFirst({
    where: { type: LedgerEvent.taskCreated, taskId: { in: tied.map((t) => t.id) } },
    orderBy: { seq: "asc" },
    select: { taskId: true },
  });
  return tied.find((t) => t.id === created?.taskId)?.ownerId ?? tied[0].ownerId;
}

/**
 * The owner of a new task in a conversation: the conversation's owner when it has one — an agent or admin
 * posting into a person's conversation acts for that person, so the person sees and can stop what it started
 * (issue 11, item 10: the task used to be the token's, and the person's next message was a 404) — else the
 * principal's own id.
 */
export async function ownerForConversation(database: Database, principal: Principal, conversationId: string | null | undefined): Promise<string> {
  if (!conversationId || isOwnerScoped(principal)) return ownerIdOf(principal);
  return (await conversationOwner(database, conversationId)) ?? ownerIdOf(principal);
}

/** Whether a conversation belongs to someone else (its first task is not the principal's). */
export async function conversationIsOthers(database: Database, principal: Principal | null, conversationId: string): Promise<boolean> {
  if (!principal || !isOwnerScoped(principal)) return false;
  const owner = await conversationOwner(database, conversationId);
  return owner !== null && owner !== ownerIdOf(principal);
}

/** 404 when the conversation is another person's. */
export async function assertConversationAccess(database: Database, principal: Principal | null, conversationId: string): Promise<void> {
  if (await conversationIsOthers(database, principal, conversationId)) {
    throw new AppError(ErrorCode.notFound, `conversation ${conversationId} not found`, { conversationId });
  }
}

/** 404 unless the principal may see this work item's task. */
export async function assertWorkItemAccess(database: Database, principal: Principal | null, workItemId: string): Promise<void> {
  const item = await database.prisma.workItem.findUnique({ where: { id: workItemId }, select: { task: { select: { ownerId: true } } } });
  if (!item || (principal && isOwnerScoped(principal) && item.task.ownerId !== ownerIdOf(principal))) {
    throw new AppError(ErrorCode.notFound, `work item ${workItemId} not found`, { workItemId });
  }
}

/** 404 unless the principal may act for this person: an owner-scoped principal (a user) only for themselves. */
export function assertPersonAccess(principal: Principal | null, ownerId: string): void {
  if (principal && isOwnerScoped(principal) && ownerIdOf(principal) !== ownerId)
    throw new AppError(ErrorCode.notFound, `person ${ownerId} not found`, { ownerId });
}
