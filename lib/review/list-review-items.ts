import type { Database } from "../db/client";

export async function listReviewItems(database: Database, filter: { status?: string; taskId?: string } = {}) {
  return database.prisma.reviewItem.findMany({
    where: { ...(filter.status ? { status: filter.status } : {}), ...(filter.taskId ? { taskId: filter.taskId } : {}) },
    orderBy: [{ deadline: "asc" }, { id: "asc" }],
    take: 500,
  });
}
