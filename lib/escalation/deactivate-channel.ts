import { AdminEvent, adminEvent } from "../auth/admin-events";
import { actorOf, type Principal } from "../auth/tokens";
import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { writeLedger } from "../ledger/write";
import { channelView } from "./channel-view";
import { DeliveryStatus } from "./states";

/**
 * Deactivates a channel (its delivery log is kept, so it is not deleted). Deliveries still pending for it
 * are failed with the reason — nothing is sent to a channel after it was switched off. The change and its
 * `escalation_channel.removed` event commit together. Repeating is harmless: an inactive channel is returned
 * as it is, and nothing is recorded twice.
 */
export async function deactivateChannel(database: Database, id: string, by: Principal) {
  return writeLedger(database, async (w) => {
    // Conditional: of two removals at once, only one switches the channel off and records it.
    const [row] = await w.tx.escalationChannel.updateManyAndReturn({ where: { id, active: true }, data: { active: false } });
    if (!row) {
      const existing = await w.tx.escalationChannel.findUnique({ where: { id } });
      if (!existing) throw new AppError(ErrorCode.notFound, `escalation channel ${id} not found`, { id });
      return channelView(existing);
    }
    const failed = await w.tx.escalationDelivery.updateMany({
      where: { channelId: id, status: DeliveryStatus.pending },
      data: { status: DeliveryStatus.failed, lastError: "the channel was deactivated before delivery" },
    });
    const view = channelView(row);
    await w.event(
      adminEvent(AdminEvent.channelRemoved, {
        entityId: id,
        actor: actorOf(by),
        fromState: "active",
        toState: "removed",
        data: { name: view.name, kind: view.kind, urlPreview: view.urlPreview, hasSecret: view.hasSecret, pendingDeliveriesFailed: failed.count },
      }),
    );
    return view;
  });
}
