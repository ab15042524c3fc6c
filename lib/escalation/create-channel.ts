import type { Database } from "../db/client";
import { channelView } from "./channel-view";
import type { ChannelKind } from "./states";

/** Adds an active channel. It receives escalations from now on (earlier ones are not replayed). */
export async function createChannel(database: Database, input: { name: string; kind: ChannelKind; url: string; secret?: string | null }) {
  const row = await database.prisma.escalationChannel.create({
    data: { name: input.name, kind: input.kind, url: input.url, secret: input.secret ?? null, active: true },
  });
  return channelView(row);
}
