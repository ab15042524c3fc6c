import type { Database } from "../db/client";

export interface DeliveryFilter {
  reviewItemId?: string;
  taskId?: string;
  channelId?: string;
  status?: string;
  kind?: string;
  limit?: number;
}

/** The delivery log, newest first: each escalation and close-out per channel with every attempt. */
export async function listDeliveries(database: Database, filter: DeliveryFilter = {}) {
  const rows = await database.prisma.escalationDelivery.findMany({
    where: {
      ...(filter.reviewItemId ? { reviewItemId: filter.reviewItemId } : {}),
      ...(filter.taskId ? { taskId: filter.taskId } : {}),
      ...(filter.channelId ? { channelId: filter.channelId } : {}),
      ...(filter.status ? { status: filter.status } : {}),
      ...(filter.kind ? { kind: filter.kind } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: filter.limit ?? 100,
    include: { channel: { select: { id: true, name: true, kind: true, active: true } } },
  });
  return rows.map((r) => ({ ...r, attemptLog: r.attemptLog ?? [] }));
}
