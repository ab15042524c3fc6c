import type { Database as Sqlite } from "better-sqlite3";
import type { Database } from "../../db/client";
import type { WorkItem } from "../../db/generated/sqlite/client.ts";
import { publishCommitted, type CommittedEvent } from "../../events/bus";
import type { AppError } from "../../errors";
import type { EventInput } from "../write";

/**
 * What the ledger's SQLite statements (lib/ledger/sql/*.ts) share. The hot path on embedded SQLite: as plain SQL in one synchronous
 * `BEGIN IMMEDIATE` transaction on Prisma's own connection. Same rules, same rows, same events as the
 * Prisma path in claim-work-item.ts / complete-work-item.ts (which PostgreSQL uses); the decisions are
 * the shared pure functions, only the I/O differs. Why: Prisma's executor costs ~250 µs per statement —
 * more than the commit's fsync — and holds SQLite's single write lock meanwhile.
 * The integration suite runs every scenario against both paths (SQLite and PostgreSQL projects).
 */

export type Direct = NonNullable<Database["sqlite"]>;

// Prepared once per connection: compiling a statement costs about as much as running it.
type Statement = { get(...params: unknown[]): unknown; all(...params: unknown[]): unknown[] };
const statements = new WeakMap<Sqlite, Map<string, Statement>>();
export function prepared(db: Sqlite, sql: string): Statement {
  let cache = statements.get(db);
  if (!cache) statements.set(db, (cache = new Map()));
  let statement = cache.get(sql);
  if (!statement) cache.set(sql, (statement = db.prepare(sql).safeIntegers(false)));
  return statement;
}

/** Prisma's SQLite DateTime text format (adapter-better-sqlite3, iso8601). */
export const sqliteTime = (d: Date) => d.toISOString().replace("Z", "+00:00");

// A work item's columns that SQLite stores as text or integers, by the type Prisma gives them (sqlite-rows.test.ts
// checks these lists against prisma/models.prisma).
export const WORK_ITEM_DATE_FIELDS = [
  "leaseExpiresAt",
  "heartbeatAt",
  "reconcileDeadline",
  "serviceRunningAt",
  "checkpointPassedAt",
  "cancelDispatchedAt",
  "cancelAnsweredAt",
  "cancelWithdrawnAt",
  "stopRequestedAt",
  "stopSettledAt",
  "stopPlannedAt",
  "createdAt",
  "startedAt",
  "submittedAt",
  "finishedAt",
  "updatedAt",
] as const;
export const WORK_ITEM_JSON_FIELDS = ["input", "partialResult", "result", "progress", "stopPlan"] as const;
export const WORK_ITEM_BOOL_FIELDS = ["commitsEffect", "partialComplete"] as const;

/** A WorkItem row as Prisma would return it. */
export function toWorkItem(row: Record<string, unknown>): WorkItem {
  const out: Record<string, unknown> = { ...row };
  for (const f of WORK_ITEM_DATE_FIELDS) out[f] = row[f] == null ? null : new Date(row[f] as string);
  for (const f of WORK_ITEM_JSON_FIELDS) out[f] = row[f] == null ? null : JSON.parse(row[f] as string);
  for (const f of WORK_ITEM_BOOL_FIELDS) out[f] = row[f] == null ? null : row[f] === 1;
  return out as unknown as WorkItem;
}

export const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

export function insertEvent(db: Sqlite, e: EventInput, now: Date, committed: CommittedEvent[]) {
  const row = prepared(
    db,
    `INSERT INTO "LedgerEvent" ("taskId","workItemId","entityType","entityId","actor","type","fromState","toState","reason","data","createdAt")
       VALUES (?,?,?,?,?,?,?,?,?,?,?) RETURNING "seq"`,
  ).get(
    e.taskId ?? null,
    e.workItemId ?? null,
    e.entityType,
    e.entityId,
    e.actor,
    e.type,
    e.fromState ?? null,
    e.toState ?? null,
    e.reason ?? null,
    json(e.data),
    sqliteTime(now),
  ) as { seq: number };
  committed.push({ seq: row.seq, taskId: e.taskId ?? null, workItemId: e.workItemId ?? null, type: e.type, toState: e.toState ?? null });
}

/** Runs a direct transaction; events are announced after the commit; a deferred rejection is thrown after it. */
export async function run<T>(direct: Direct, fn: (db: Sqlite, now: Date, committed: CommittedEvent[]) => T | { rejected: AppError }): Promise<T> {
  const committed: CommittedEvent[] = [];
  const result = await direct.transaction((db) => {
    committed.length = 0;
    return fn(db, new Date(), committed);
  });
  publishCommitted(committed);
  if (result && typeof result === "object" && "rejected" in (result as object)) throw (result as { rejected: AppError }).rejected;
  return result as T;
}
