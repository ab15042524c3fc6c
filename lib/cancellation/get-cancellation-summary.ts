import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { OPEN_REVIEW_STATUSES } from "../ledger/states";
import { summarize, type CancellationSummary } from "./summarize";

/** The cancellation summary of a task, as the ledger knows it right now. 404 if no Stop was requested. */
export async function getCancellationSummary(database: Database, taskId: string): Promise<CancellationSummary> {
  const task = await database.prisma.task.findUnique({
    where: { id: taskId },
    include: { workItems: true, resources: true, sideEffects: true },
  });
  if (!task) throw new AppError(ErrorCode.notFound, `task ${taskId} not found`, { taskId });
  if (!task.cancelRequestedAt) {
    throw new AppError(ErrorCode.notFound, `no cancellation was requested for task ${taskId}`, { taskId, stage: task.stage });
  }
  const openReviewItems = await database.prisma.reviewItem.count({ where: { taskId, status: { in: OPEN_REVIEW_STATUSES } } });
  return summarize({ task: { id: task.id, cancelRequestedAt: task.cancelRequestedAt }, workItems: task.workItems, resources: task.resources, sideEffects: task.sideEffects, openReviewItems });
}
