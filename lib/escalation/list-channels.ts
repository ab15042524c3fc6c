import type { Database } from "../db/client";
import { channelView } from "./channel-view";

/** Every channel, active first, newest first; secrets are never included. */
export async function listChannels(database: Database) {
  const rows = await database.prisma.escalationChannel.findMany({ orderBy: [{ active: "desc" }, { createdAt: "desc" }, { id: "asc" }], take: 500 });
  return rows.map(channelView);
}
