import type { Database } from "../db/client";
import { StopScope } from "../ledger/states";
import { REPORTED_INTENT_STATES } from "../outcomes";
import { AppError, ErrorCode } from "../errors";
import { summarize, type CancellationSummary } from "./summarize";

/** The cancellation summary of a task, as the ledger knows it right now. 404 if no Stop was requested. */
export async function getCancellationSummary(database: Database, taskId: string): Promise<CancellationSummary> {
  const task = await database.prisma.task.findUnique({
    where: { id: taskId },
    include: {
      workItems: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] },
      resources: { orderBy: { createdAt: "asc" } },
      resourceIntents: { where: { state: { in: REPORTED_INTENT_STATES } }, orderBy: { createdAt: "asc" } },
      sideEffects: { orderBy: { createdAt: "asc" } },
      reviewItems: { orderBy: { createdAt: "asc" } },
    },
  });
  if (!task) throw new AppError(ErrorCode.notFound, `task ${taskId} not found`, { taskId });
  if (!task.cancelRequestedAt) {
    throw new AppError(ErrorCode.notFound, `no cancellation was requested for task ${taskId}`, { taskId, stage: task.stage });
  }
  return summarize({
    task: {
      id: task.id,
      cancelRequestedAt: task.cancelRequestedAt,
      settledAt: task.settledAt,
      cancelRequestedBy: task.cancelRequestedBy,
      cancelReason: task.cancelReason,
    },
    scope: { kind: (task.cancelScope as StopScope | null) ?? StopScope.task, ref: task.cancelScopeRef },
    workItems: task.workItems,
    resources: task.resources,
    resourceIntents: task.resourceIntents,
    sideEffects: task.sideEffects,
    reviewItems: task.reviewItems,
    now: new Date(),
  });
}

/**
 * The summary of a Stop of one child (a scoped Stop, issue 13): the same summary, over the stopped child and its
 * descendants only, read against the child's own boundary and settlement; scope `work_item`. 404 if that child was
 * never stopped alone (a child stopped with its task is in the task's summary).
 */
export async function getChildCancellationSummary(database: Database, workItemId: string): Promise<CancellationSummary> {
  const item = await database.prisma.workItem.findUnique({ where: { id: workItemId } });
  if (!item) throw new AppError(ErrorCode.notFound, `work item ${workItemId} not found`, { workItemId });
  const rootId = item.stopRootId;
  const root = rootId ? await database.prisma.workItem.findUnique({ where: { id: rootId } }) : null;
  if (!root?.stopRequestedAt) throw new AppError(ErrorCode.notFound, `no Stop of work item ${workItemId} was requested`, { workItemId });
  const workItems = await database.prisma.workItem.findMany({
    where: { taskId: root.taskId, stopRootId: root.id },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  const ids = workItems.map((i) => i.id);
  const [resources, resourceIntents, sideEffects] = await Promise.all([
    database.prisma.resource.findMany({ where: { workItemId: { in: ids } }, orderBy: { createdAt: "asc" } }),
    database.prisma.resourceIntent.findMany({ where: { workItemId: { in: ids }, state: { in: REPORTED_INTENT_STATES } }, orderBy: { createdAt: "asc" } }),
    database.prisma.sideEffect.findMany({ where: { workItemId: { in: ids } }, orderBy: { createdAt: "asc" } }),
  ]);
  const reviewItems = await database.prisma.reviewItem.findMany({
    where: { OR: [{ workItemId: { in: ids } }, { sideEffectId: { in: sideEffects.map((e) => e.id) } }] },
    orderBy: { createdAt: "asc" },
  });
  return summarize({
    task: {
      id: root.taskId,
      cancelRequestedAt: root.stopRequestedAt,
      settledAt: root.stopSettledAt,
      cancelRequestedBy: root.stopRequestedBy,
      cancelReason: root.stopReason,
    },
    scope: { kind: StopScope.workItem, ref: root.id },
    workItems,
    resources,
    resourceIntents,
    sideEffects,
    reviewItems,
    now: new Date(),
  });
}
