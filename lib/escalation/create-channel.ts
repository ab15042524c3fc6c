import { AdminEvent, adminEvent } from "../auth/admin-events";
import { actorOf, type Principal } from "../auth/tokens";
import type { Database } from "../db/client";
import { writeLedger } from "../ledger/write";
import { catchUpChannel } from "./catch-up-channel";
import { channelView } from "./channel-view";
import { assertAllowedDestination } from "./destination";
import type { ChannelKind } from "./states";

/**
 * Adds an active channel. It receives escalations from now on, and — marked late — every escalated item that is
 * still waiting for a decision (catch-up-channel.ts; decided ones are not replayed). The row and its
 * `escalation_channel.created` event commit together; the event holds the channel's view (name, kind, URL
 * preview, whether a secret is set) — never the secret or the full URL. A URL that reaches an internal address
 * is refused (400, lib/escalation/destination.ts).
 */
export async function createChannel(database: Database, input: { name: string; kind: ChannelKind; url: string; secret?: string | null }, by: Principal) {
  // Only public destinations (or ones an administrator allow-listed): checked now, and again at every delivery.
  await assertAllowedDestination(input.url);
  const { view, row } = await writeLedger(database, async (w) => {
    const row = await w.tx.escalationChannel.create({
      data: { name: input.name, kind: input.kind, url: input.url, secret: input.secret ?? null, active: true },
    });
    const view = channelView(row);
    await w.event(
      adminEvent(AdminEvent.channelCreated, {
        entityId: row.id,
        actor: actorOf(by),
        toState: "active",
        data: { name: view.name, kind: view.kind, urlPreview: view.urlPreview, hasSecret: view.hasSecret },
      }),
    );
    return { view, row };
  });
  // After the commit: what is still open and was escalated before this channel existed goes to it now, marked late.
  await catchUpChannel(database, row);
  return view;
}
