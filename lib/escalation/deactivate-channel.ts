import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { channelView } from "./channel-view";
import { DeliveryStatus } from "./states";

/**
 * Deactivates a channel (its delivery log is kept, so it is not deleted). Deliveries still pending for it
 * are failed with the reason — nothing is sent to a channel after it was switched off. Repeating is harmless.
 */
export async function deactivateChannel(database: Database, id: string) {
  const row = await database.prisma.$transaction(async (tx) => {
    const existing = await tx.escalationChannel.findUnique({ where: { id } });
    if (!existing) throw new AppError(ErrorCode.notFound, `escalation channel ${id} not found`, { id });
    if (!existing.active) return existing;
    await tx.escalationDelivery.updateMany({ where: { channelId: id, status: DeliveryStatus.pending }, data: { status: DeliveryStatus.failed, lastError: "the channel was deactivated before delivery" } });
    return tx.escalationChannel.update({ where: { id }, data: { active: false } });
  });
  return channelView(row);
}
