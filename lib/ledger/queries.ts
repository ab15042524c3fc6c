import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { REPORTED_INTENT_STATES, taskStanding, withServiceCouldNotSay } from "../outcomes";
import { taskRowFacts, type TaskRowFacts } from "./task-row-facts";
import { archivedTaskError } from "../retention/archived-task";
import { ResourceIntentState } from "./states";

export interface TaskFilter {
  stage?: string[];
  conversationId?: string;
  ownerId?: string;
  limit?: number;
  /** Tasks created before this task id's creation (keyset pagination, newest first). */
  before?: string;
}

export async function listTasks(database: Database, filter: TaskFilter = {}) {
  const limit = Math.min(filter.limit ?? 50, 200);
  const cursor = filter.before ? await database.prisma.task.findUnique({ where: { id: filter.before }, select: { createdAt: true, id: true } }) : null;
  if (filter.before && !cursor) throw new AppError(ErrorCode.badRequest, `cursor task ${filter.before} not found`, { field: "before" });
  const tasks = await database.prisma.task.findMany({
    where: {
      ...(filter.stage?.length ? { stage: { in: filter.stage } } : {}),
      ...(filter.conversationId ? { conversationId: filter.conversationId } : {}),
      ...(filter.ownerId ? { ownerId: filter.ownerId } : {}),
      ...(cursor ? { OR: [{ createdAt: { lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { lt: cursor.id } }] } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    // No `_count` of work items here: Prisma computes it by grouping the whole WorkItem table before the join, a cost
    // that grows with the history (issue 22 §3). The row facts count the page's children from their own read.
    take: limit + 1,
  });
  const page = tasks.slice(0, limit);
  const facts = await taskRowFacts(database, page);
  return {
    tasks: page.map((t) => ({ ...t, ...(facts.get(t.id) ?? emptyRowFacts(t.stage)) })),
    nextCursor: tasks.length > limit ? tasks[limit - 1].id : null,
  };
}

/** A row whose task vanished between the two reads (never in practice: tasks are not deleted). */
const emptyRowFacts = (stage: string): TaskRowFacts => ({
  outcomes: [],
  stopStatus: null,
  standing: taskStanding({ stage, stopStatus: null }),
  ownerEmail: null,
  workItemCount: 0,
  tools: [],
  effects: { committed: 0, unknown: 0 },
  awaitingDecision: 0,
  nextDeadline: null,
  uncertainSteps: 0,
});

/** A task with everything it owns: work items, resources, side effects, review items. */
export async function getTaskDetail(database: Database, taskId: string) {
  const task = await database.prisma.task.findUnique({
    where: { id: taskId },
    include: {
      workItems: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] },
      resources: { orderBy: { createdAt: "asc" } },
      resourceIntents: { where: { state: { in: REPORTED_INTENT_STATES } }, orderBy: { createdAt: "asc" } },
      sideEffects: { orderBy: { createdAt: "asc" } },
      reviewItems: { orderBy: { deadline: "asc" } },
    },
  });
  // A task that left the ledger under the retention policy: the 404 says when and to which archive file (lib/retention).
  if (!task) throw (await archivedTaskError(database, taskId, { withPath: true })) ?? new AppError(ErrorCode.notFound, `task ${taskId} not found`, { taskId });
  // The owner as people know them (issue 20, item 7: the detail named the owner by id, the list by e-mail).
  const owner = await database.prisma.user.findUnique({ where: { id: task.ownerId }, select: { email: true } });
  const { resourceIntents, resources, ...rest } = task;
  const openResourceIntents = resourceIntents
    .filter((i) => i.state === ResourceIntentState.open)
    .map(({ id, workItemId, type, key, createdAt }) => ({ id, workItemId, type, key, createdAt }));
  // An orphaned resource standing for an intent its service could not answer for reads "may still be held", not "could not be released".
  return { ...rest, resources: withServiceCouldNotSay(resources, resourceIntents), openResourceIntents, ownerEmail: owner?.email ?? null };
}

export async function getWorkItem(database: Database, workItemId: string) {
  const item = await database.prisma.workItem.findUnique({ where: { id: workItemId } });
  if (!item) throw new AppError(ErrorCode.notFound, `work item ${workItemId} not found`, { workItemId });
  return item;
}
