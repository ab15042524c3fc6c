import type { Database } from "../db/client";
import { ADMIN_ENTITIES, ADMIN_EVENT_TYPES, type AdminEntity } from "./admin-events";

export interface AdminHistoryQuery {
  /** Only events with a smaller sequence number (the `nextBefore` of the previous page). */
  before?: number;
  /** At most this many (default 50). */
  limit?: number;
  /** Only this kind of thing: API tokens, people's accounts or escalation channels. */
  entityType?: AdminEntity;
}

export const ADMIN_HISTORY_DEFAULT_LIMIT = 50;

/**
 * The most recent administrative events, newest first: who created or revoked which API token, created,
 * re-roled, disabled or enabled which account, added or removed which escalation channel — and when. Read
 * from the append-only ledger, so nothing here can have been edited since.
 *
 * Administrative events have no task (taskId null), so the ledger's (taskId, seq) index serves this query on
 * both engines: it reads the task-less rows backwards from `before`, not the whole ledger.
 */
export async function listAdminHistory(database: Database, query: AdminHistoryQuery = {}) {
  const limit = query.limit ?? ADMIN_HISTORY_DEFAULT_LIMIT;
  const rows = await database.prisma.ledgerEvent.findMany({
    where: {
      taskId: null,
      entityType: query.entityType ?? { in: ADMIN_ENTITIES },
      type: { in: ADMIN_EVENT_TYPES },
      ...(query.before !== undefined ? { seq: { lt: query.before } } : {}),
    },
    orderBy: { seq: "desc" },
    take: limit + 1,
    select: { seq: true, type: true, entityType: true, entityId: true, actor: true, fromState: true, toState: true, data: true, createdAt: true },
  });
  const page = rows.slice(0, limit);
  return {
    events: page.map((row) => {
      const data = isRecord(row.data) ? row.data : {};
      return { ...row, data, subject: subjectOf(row.entityType, data, row.entityId) };
    }),
    /** Pass as `before` for the next (older) page; null when there is none. */
    nextBefore: rows.length > limit ? page[page.length - 1].seq : null,
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** What the event was about, as it was named then: a token's or channel's name, an account's address. */
function subjectOf(entityType: string, data: Record<string, unknown>, entityId: string): string {
  const pick = entityType === "account" ? data.email : data.name;
  return typeof pick === "string" && pick ? pick : entityId;
}
