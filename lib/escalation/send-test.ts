import { randomUUID } from "node:crypto";
import { actorOf, type Principal } from "../auth/tokens";
import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { ChannelKind, DeliveryKind, DeliveryStatus, EscalationEvent } from "./states";

/**
 * "Send test": one delivery of kind `test` to the channel, through the same deliverer as every escalation (signed,
 * retried with backoff, every attempt in the delivery log) — so its result counts in the channel's health like any
 * other delivery. It is about no review item: its reviewItemId and taskId are fresh ids that name nothing. The
 * deliverer sends it on its next pass (its poll: within a second).
 */
export async function sendTest(database: Database, channelId: string, by: Principal) {
  const channel = await database.prisma.escalationChannel.findUnique({ where: { id: channelId } });
  if (!channel) throw new AppError(ErrorCode.notFound, `escalation channel ${channelId} not found`, { channelId });
  if (!channel.active) throw new AppError(ErrorCode.conflict, `channel “${channel.name}” was removed: it receives nothing`, { channelId });
  const at = new Date();
  const text = `Test from Stopline, sent by ${actorOf(by)}: this channel receives escalations of review items that pass their deadline.`;
  const payload =
    channel.kind === ChannelKind.slack
      ? { text: `:white_check_mark: ${text}` }
      : { event: EscalationEvent.test, sentBy: actorOf(by), at: at.toISOString(), message: text };
  const row = await database.prisma.escalationDelivery.create({
    data: { channelId, reviewItemId: randomUUID(), taskId: randomUUID(), kind: DeliveryKind.test, status: DeliveryStatus.pending, payload, nextAttemptAt: at },
    select: { id: true, status: true, createdAt: true },
  });
  return { delivery: row };
}
