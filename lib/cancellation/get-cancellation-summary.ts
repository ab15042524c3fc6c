import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { summarize, type CancellationSummary } from "./summarize";

/** The cancellation summary of a task, as the ledger knows it right now. 404 if no Stop was requested. */
export async function getCancellationSummary(database: Database, taskId: string): Promise<CancellationSummary> {
  const task = await database.prisma.task.findUnique({
    where: { id: taskId },
    include: {
      workItems: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] },
      resources: { orderBy: { createdAt: "asc" } },
      sideEffects: { orderBy: { createdAt: "asc" } },
      reviewItems: { orderBy: { createdAt: "asc" } },
    },
  });
  if (!task) throw new AppError(ErrorCode.notFound, `task ${taskId} not found`, { taskId });
  if (!task.cancelRequestedAt) {
    throw new AppError(ErrorCode.notFound, `no cancellation was requested for task ${taskId}`, { taskId, stage: task.stage });
  }
  return summarize({
    task: { id: task.id, cancelRequestedAt: task.cancelRequestedAt, settledAt: task.settledAt },
    workItems: task.workItems, resources: task.resources, sideEffects: task.sideEffects, reviewItems: task.reviewItems,
    now: new Date(),
  });
}
