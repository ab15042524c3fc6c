import type { Database } from "../db/client";
import type { WorkItem } from "../db/generated/sqlite/client.ts";
import type { CallRef } from "../tools/contract";

/** The reference a tool's stop contract gets for a call (inspect, cancel, rollback, release). */
export const refOf = (item: WorkItem, effect?: { operationId: string; providerRef: string | null } | null): CallRef => ({
  workItemId: item.id,
  taskId: item.taskId,
  toolCallId: item.correlationId,
  idempotencyKey: item.idempotencyKey,
  operationId: item.operationId ?? effect?.operationId ?? null,
  providerRef: item.providerRef ?? effect?.providerRef ?? null,
  input: item.input,
});

/**
 * The reference the service knows a call by. When Stop won the race with the submission report, the item
 * has no operation id but its side effect (recorded anyway, see record-submission.ts) does.
 */
export async function refFor(database: Database, item: WorkItem): Promise<CallRef> {
  if (item.operationId) return refOf(item);
  const effect = await database.prisma.sideEffect.findFirst({
    where: { workItemId: item.id },
    orderBy: { createdAt: "asc" },
    select: { operationId: true, providerRef: true },
  });
  return refOf(item, effect);
}
