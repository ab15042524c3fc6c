import type { Database } from "../db/client";
import type { AttemptRecord } from "./deliver";
import { channelHealth, type Attempt } from "./channel-health";
import { channelView } from "./channel-view";

/**
 * Every channel, active first, newest first, each with its health derived from its delivery log (last success,
 * failures in a row); secrets are never included. Read by everyone who oversees Stopline (support included).
 */
export async function listChannels(database: Database) {
  const rows = await database.prisma.escalationChannel.findMany({ orderBy: [{ active: "desc" }, { createdAt: "desc" }, { id: "asc" }], take: 500 });
  if (!rows.length) return [];
  // The attempts of each channel's most recent deliveries: enough to know its latest success and failures in a row.
  const deliveries = await database.prisma.escalationDelivery.findMany({
    where: { channelId: { in: rows.map((r) => r.id) }, attempts: { gt: 0 } },
    orderBy: [{ lastAttemptAt: "desc" }, { id: "desc" }],
    take: 5_000,
    select: { channelId: true, attemptLog: true },
  });
  const attemptsOf = new Map<string, Attempt[]>();
  for (const d of deliveries) {
    const list = attemptsOf.get(d.channelId) ?? [];
    for (const a of (d.attemptLog as unknown as AttemptRecord[] | null) ?? []) list.push({ at: a.at, status: a.status, error: a.error });
    attemptsOf.set(d.channelId, list);
  }
  return rows.map((row) => ({ ...channelView(row), health: channelHealth(row.active, attemptsOf.get(row.id) ?? []) }));
}
