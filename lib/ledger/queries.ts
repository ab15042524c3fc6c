import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { outcomesOfTask, type OutcomeKind } from "../outcomes";

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
    take: limit + 1,
    include: { _count: { select: { workItems: true } } },
  });
  const page = tasks.slice(0, limit);
  const outcomes = await outcomeCounts(database, page.map((t) => t.id));
  return {
    tasks: page.map((t) => ({ ...t, outcomes: outcomes.get(t.id) ?? [] })),
    nextCursor: tasks.length > limit ? tasks[limit - 1].id : null,
  };
}

/**
 * How many children of each task ended (or stand) how, in the one vocabulary (lib/outcomes) — what the
 * console's task list shows per row. Three queries for the whole page, none per task.
 */
async function outcomeCounts(database: Database, taskIds: string[]): Promise<Map<string, { kind: OutcomeKind; count: number }[]>> {
  if (!taskIds.length) return new Map();
  const [tasks, workItems, sideEffects, reviewItems] = await Promise.all([
    database.prisma.task.findMany({ where: { id: { in: taskIds } }, select: { id: true, cancelRequestedAt: true, settledAt: true } }),
    database.prisma.workItem.findMany({ where: { taskId: { in: taskIds } } }),
    database.prisma.sideEffect.findMany({ where: { taskId: { in: taskIds } }, select: { id: true, taskId: true, workItemId: true, outcome: true, reversible: true } }),
    database.prisma.reviewItem.findMany({ where: { taskId: { in: taskIds } }, select: { taskId: true, workItemId: true, sideEffectId: true, kind: true, status: true, deadline: true } }),
  ]);
  const now = Date.now();
  const counts = new Map<string, { kind: OutcomeKind; count: number }[]>();
  for (const task of tasks) {
    const of = <T extends { taskId: string }>(rows: T[]) => rows.filter((r) => r.taskId === task.id);
    const byKind = new Map<OutcomeKind, number>();
    for (const o of outcomesOfTask({ ...task, workItems: of(workItems), sideEffects: of(sideEffects), reviewItems: of(reviewItems) }, now).values()) {
      byKind.set(o.kind, (byKind.get(o.kind) ?? 0) + 1);
    }
    counts.set(task.id, [...byKind].map(([kind, count]) => ({ kind, count })));
  }
  return counts;
}

/** A task with everything it owns: work items, resources, side effects, review items. */
export async function getTaskDetail(database: Database, taskId: string) {
  const task = await database.prisma.task.findUnique({
    where: { id: taskId },
    include: {
      workItems: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] },
      resources: { orderBy: { createdAt: "asc" } },
      sideEffects: { orderBy: { createdAt: "asc" } },
      reviewItems: { orderBy: { deadline: "asc" } },
    },
  });
  if (!task) throw new AppError(ErrorCode.notFound, `task ${taskId} not found`, { taskId });
  return task;
}

export async function getWorkItem(database: Database, workItemId: string) {
  const item = await database.prisma.workItem.findUnique({ where: { id: workItemId } });
  if (!item) throw new AppError(ErrorCode.notFound, `work item ${workItemId} not found`, { workItemId });
  return item;
}
