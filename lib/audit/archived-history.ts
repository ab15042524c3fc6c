import type { Database } from "../db/client";
import { archivedHistoryLine } from "./archived-words";

/** One archive file's share of a search: how many matching tasks it holds, until when they settled, and the words. */
export interface AuditArchived {
  archivePath: string;
  archivedAt: string;
  taskCount: number;
  firstSettledAt: string;
  lastSettledAt: string;
  /** "Older history (N tasks settled before <date>) was archived on <date> to <path>." */
  line: string;
}

/**
 * The archived history matching an audit search (ArchivedTask rows, lib/retention), one entry per archive file, newest
 * archive first. Matched by owner (the `user` search's owner ids, or ownerId), conversation, task and creation time —
 * not by tool or by an e-mail inside what the agent wrote: those lived in the rows that left, and the archive file
 * holds them.
 */
export async function archivedHistory(
  database: Database,
  filter: { ownerId?: string; ownerIds?: string[]; conversationId?: string; taskId?: string; from?: string; to?: string },
): Promise<AuditArchived[]> {
  const owners = [...(filter.ownerId ? [filter.ownerId] : []), ...(filter.ownerIds ?? [])];
  if (filter.ownerId && filter.ownerIds && !filter.ownerIds.includes(filter.ownerId)) return [];
  const createdAt =
    filter.from || filter.to ? { ...(filter.from ? { gte: new Date(filter.from) } : {}), ...(filter.to ? { lte: new Date(filter.to) } : {}) } : undefined;
  const groups = await database.prisma.archivedTask.groupBy({
    by: ["archivePath"],
    where: {
      ...(owners.length ? { ownerId: { in: [...new Set(owners)] } } : {}),
      ...(filter.conversationId ? { conversationId: filter.conversationId } : {}),
      ...(filter.taskId ? { taskId: filter.taskId } : {}),
      ...(createdAt ? { createdAt } : {}),
    },
    _count: { _all: true },
    _min: { settledAt: true },
    _max: { settledAt: true, archivedAt: true },
    orderBy: { _max: { archivedAt: "desc" } },
    take: 100,
  });
  return groups.map((g) => {
    const facts = { archivePath: g.archivePath, archivedAt: g._max.archivedAt!, taskCount: g._count._all, lastSettledAt: g._max.settledAt! };
    return {
      archivePath: g.archivePath,
      archivedAt: g._max.archivedAt!.toISOString(),
      taskCount: g._count._all,
      firstSettledAt: g._min.settledAt!.toISOString(),
      lastSettledAt: g._max.settledAt!.toISOString(),
      line: archivedHistoryLine(facts),
    };
  });
}
