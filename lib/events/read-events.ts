import type { LedgerEventType } from "../ledger/events";
import { onEngine, type Database } from "../db/client";
import type { PgDirect } from "../db/pg";
import { AppError, ErrorCode } from "../errors";

/**
 * Reading the ledger's events in a stable order that every reader agrees on — the basis of SSE replay after
 * Last-Event-ID (in order, exactly once), of each process's live view and of the escalation reader.
 *
 * SQLite has one writer at a time, so events commit in `seq` order: the position is `seq`.
 *
 * PostgreSQL writers run concurrently (no global lock), so a smaller `seq` can commit after a larger one. Each
 * event row records its transaction id (`txid`, a column outside the Prisma models: see the ledger_fences
 * migration) and readers order by (txid, seq), delivering only events whose transaction is older than the
 * oldest transaction still running (the watermark): no transaction below it can still commit, so nothing can
 * later appear before what was delivered. (The standard outbox technique.) A transaction's id is assigned at
 * its first write, so a transaction that began writing after another committed orders after it.
 *
 * The watermark is taken from the reading statement's own snapshot (its in-progress list), leaving out the
 * transactions of other databases on the same server (they cannot write this ledger): a long transaction
 * elsewhere on the cluster must not hold back this ledger's live view. Sessions end idle transactions after
 * 10 s (lib/db/pg.ts), which bounds how long one of our own can.
 *
 * The SSE `id` stays the event's `seq`: a resume looks its position up.
 */
export interface EventPosition {
  /** The writing transaction's id (PostgreSQL; "0" on SQLite), a decimal string (xid8 exceeds 2^53). */
  txid: string;
  seq: number;
}

export const START: EventPosition = { txid: "0", seq: 0 };

/**
 * One ledger event as the API and SSE send it. `type` is read from the column as a catalogue type: only the
 * writer (lib/ledger/write.ts, typed by the catalogue) and the hot paths' constants put types there.
 */
export interface LedgerEventRow {
  seq: number;
  taskId: string | null;
  workItemId: string | null;
  entityType: string;
  entityId: string;
  actor: string;
  type: LedgerEventType;
  fromState: string | null;
  toState: string | null;
  reason: string | null;
  data: unknown;
  createdAt: Date;
}

/** A read event: the row, its position, and its task's owner (for per-principal filtering). */
export interface PositionedEvent {
  event: LedgerEventRow;
  position: EventPosition;
  ownerId: string | null;
}

export const comparePositions = (a: EventPosition, b: EventPosition): number => {
  const x = BigInt(a.txid);
  const y = BigInt(b.txid);
  return x < y ? -1 : x > y ? 1 : a.seq - b.seq;
};

export interface ReadOptions {
  /** Only this task's events. */
  taskId?: string;
  /** Only events of tasks this owner owns. */
  ownerId?: string;
  /** Only events of these types. */
  types?: string[];
  /** Only review items' events — in the SQL text as a literal, so that the partial index of them in ledger order
   * (LedgerEvent_reviewItem_order_idx) serves the read: the escalation reader's scan no longer walks every other event. */
  reviewItemsOnly?: boolean;
  /** Read up to this position (inclusive), e.g. where a live view stands. */
  upTo?: EventPosition;
  limit?: number;
  /**
   * PostgreSQL: transactions (xid8s, decimal) known to be other databases' (otherDatabasesTransactions) — left out of
   * the watermark without looking at the server's sessions. Absent: looked up in the read.
   */
  otherDatabases?: readonly string[];
}

export interface ReadResult {
  events: PositionedEvent[];
  /** PostgreSQL: later events are already committed but wait behind an older transaction still running. */
  held: boolean;
  /** When held: the transaction they wait behind (xid8, decimal). */
  heldBy: string | null;
}

/**
 * A read in ledger order with its watermark, in one statement (one snapshot): `candidates` (its SELECT, which must
 * return the event's `txid` as "_x" and order and limit by it) are the next rows; `w.xmin` is the oldest transaction of
 * THIS database still in progress in the snapshot, else the snapshot's xmax; a row is deliverable below it.
 *
 * Transactions of other databases on the server are left out (`elsewhere`): found among the server's sessions
 * (pg_stat_activity; a session of another database that ended meanwhile is kept as a blocker: late, never wrong), or
 * given (`known`, a parameter: xid8s found so before — a transaction id is never reused, so one found to be another
 * database's stays so). pg_stat_activity costs ~0.3 ms, most of a live read's cost under load (issue 22 §5), so the
 * live view passes what it found and looks again only when something holds its reads back for a while (live.ts).
 * Only a transaction in progress below the newest candidate can hold one back, so only those are looked up (the cheap
 * comparison is evaluated first, the CTE only when first scanned); the xmin differs from the full one only when both
 * are above every candidate, where every candidate is deliverable either way.
 */
const watermarked = (candidates: string, columns: string, known: string | null) => `
WITH ${SNAPSHOT}, candidates AS MATERIALIZED (${candidates}),
  ${known ? `elsewhere AS MATERIALIZED (SELECT unnest(${known}::xid8[]) AS x)` : ELSEWHERE}, ${xmin(`SELECT max(c."_x") FROM candidates c`)}
SELECT ${columns}, c."_x"::text AS "_txid", c."_x" < w.xmin AS "_deliverable", w.xmin::text AS "_xmin"
FROM candidates c, w
ORDER BY c."_x", c."seq"`;

const SNAPSHOT = `snap AS MATERIALIZED (SELECT pg_current_snapshot() AS s)`;
/** The in-progress transactions (xid8) of other databases: backend_xid is a 32-bit xid, matched on the xid8s' low 32 bits. */
const OTHER_DATABASES_XIDS = `SELECT x FROM snap, pg_snapshot_xip(snap.s) AS x
  WHERE (x::text::bigint % 4294967296) IN (
    SELECT backend_xid::text::bigint FROM pg_stat_activity WHERE backend_xid IS NOT NULL AND datname IS DISTINCT FROM current_database()
  )`;
const ELSEWHERE = `elsewhere AS MATERIALIZED (${OTHER_DATABASES_XIDS})`;
/** `w.xmin`, from the in-progress transactions at or below `upTo` (a scalar subquery), or all of them. */
const xmin = (upTo: string | null) => `w AS MATERIALIZED (
  SELECT COALESCE(
    (SELECT min(x) FROM snap, pg_snapshot_xip(snap.s) AS x
     WHERE ${upTo ? `x <= (${upTo}) AND ` : ""}x NOT IN (SELECT x FROM elsewhere)),
    (SELECT pg_snapshot_xmax(s) FROM snap)
  ) AS xmin
)`;
/** The whole watermark (where the ledger stands: headPosition). */
const WATERMARK = `${SNAPSHOT}, ${ELSEWHERE}, ${xmin(null)}`;

/**
 * The transactions of other databases on this server in progress now (xid8s, decimal): what a reader may pass as
 * `otherDatabases` from then on (PostgreSQL).
 */
export async function otherDatabasesTransactions(pg: PgDirect): Promise<string[]> {
  const rows = await pg.query<{ x: string }>(`WITH ${SNAPSHOT} SELECT o.x::text AS x FROM (${OTHER_DATABASES_XIDS}) o`, [], "stopline_other_databases_xids");
  return rows.map((r) => r.x);
}

/** An event's columns as every read returns them, its task's owner as "_ownerId". */
const EVENT_FIELDS = ["seq", "taskId", "workItemId", "entityType", "entityId", "actor", "type", "fromState", "toState", "reason", "data", "createdAt"];
const COLUMNS = `${EVENT_FIELDS.map((f) => `e."${f}"`).join(", ")}, t."ownerId" AS "_ownerId"`;
/** COLUMNS as the watermarked read returns them from its candidates. */
const CANDIDATE_COLUMNS = [...EVENT_FIELDS, "_ownerId"].map((f) => `c."${f}"`).join(", ");

type RawRow = LedgerEventRow & { _ownerId: string | null; _txid?: string; _deliverable?: boolean; _xmin?: string };

// SQLite raw reads return DateTime as Prisma's ISO text ("…+00:00") and Json as its JSON text.
const toDate = (v: unknown) => (v instanceof Date ? v : new Date(String(v)));

function positioned(rows: RawRow[], pgOrder: boolean): PositionedEvent[] {
  return rows.map(({ _ownerId, _txid, _deliverable: _d, _xmin: _w, ...event }) => ({
    event: { ...event, createdAt: toDate(event.createdAt), data: typeof event.data === "string" && !pgOrder ? JSON.parse(event.data) : event.data },
    position: { txid: pgOrder ? _txid! : "0", seq: event.seq },
    ownerId: _ownerId,
  }));
}

const REVIEW_ITEMS_ONLY = `e."entityType" = 'reviewItem'`;

/** Events after `after`, in ledger order, that may be delivered now (see the module comment). */
export async function readEventsAfter(database: Database, after: EventPosition, options: ReadOptions = {}): Promise<ReadResult> {
  const limit = options.limit ?? 500;
  return onEngine(database, {
    postgres: async (pg) => {
      const params: unknown[] = [after.txid, after.seq, limit];
      const where: string[] = [`(e."txid", e."seq") > ($1::xid8, $2::int)`];
      if (options.taskId) where.push(`e."taskId" = $${params.push(options.taskId)}`);
      if (options.ownerId) where.push(`t."ownerId" = $${params.push(options.ownerId)}`);
      if (options.types) where.push(`e."type" = ANY($${params.push(options.types)}::text[])`);
      if (options.reviewItemsOnly) where.push(REVIEW_ITEMS_ONLY);
      if (options.upTo) where.push(`(e."txid", e."seq") <= ($${params.push(options.upTo.txid)}::xid8, $${params.push(options.upTo.seq)}::int)`);
      // The watermark is read in the same statement (same snapshot): every transaction below it has ended, and
      // those that committed are visible here. Rows at or above it are counted, not delivered.
      const rows = await pg.query<RawRow>(
        watermarked(
          `SELECT ${COLUMNS}, e."txid" AS "_x" FROM "LedgerEvent" e LEFT JOIN "Task" t ON t."id" = e."taskId"
           WHERE ${where.join(" AND ")} ORDER BY e."txid", e."seq" LIMIT $3`,
          CANDIDATE_COLUMNS,
          options.otherDatabases ? `$${params.push(options.otherDatabases)}` : null,
        ),
        params,
      );
      // (txid, seq) order puts every deliverable row before any held one.
      const deliverable = rows.filter((r) => r._deliverable);
      const held = deliverable.length < rows.length;
      return { events: positioned(deliverable, true), held, heldBy: held ? rows[0]._xmin! : null };
    },
    sqlite: async () => {
      const params: unknown[] = [after.seq];
      const where: string[] = [`e."seq" > ?`];
      if (options.taskId) where.push(`e."taskId" = ?`), params.push(options.taskId);
      if (options.ownerId) where.push(`t."ownerId" = ?`), params.push(options.ownerId);
      if (options.types) where.push(`e."type" IN (${options.types.map(() => "?").join(",")})`), params.push(...options.types);
      if (options.reviewItemsOnly) where.push(REVIEW_ITEMS_ONLY);
      if (options.upTo) where.push(`e."seq" <= ?`), params.push(options.upTo.seq);
      params.push(limit);
      const rows = await database.prisma.$queryRawUnsafe<RawRow[]>(
        `SELECT ${COLUMNS} FROM "LedgerEvent" e LEFT JOIN "Task" t ON t."id" = e."taskId" WHERE ${where.join(" AND ")} ORDER BY e."seq" LIMIT ?`,
        ...params,
      );
      return {
        events: positioned(
          rows.map((r) => ({ ...r, seq: Number(r.seq) })),
          false,
        ),
        held: false,
        heldBy: null,
      };
    },
  });
}

/** What a process's bus needs of an event committed elsewhere (bus.ts CommittedEvent), with its position. */
export interface EventHeader {
  position: EventPosition;
  seq: number;
  taskId: string | null;
  workItemId: string | null;
  type: LedgerEventType;
  toState: string | null;
}

/**
 * Events after `after` as readEventsAfter reads them (same order, same watermark), but only what a process's bus
 * needs: no payload, no owner. The live view of a process that serves no stream (a worker process) reads this: the
 * task join and the payload were most of the read's cost, paid in every process for every event (bench:pg part D).
 */
export async function readEventHeadersAfter(
  database: Database,
  after: EventPosition,
  options: Pick<ReadOptions, "limit" | "otherDatabases"> = {},
): Promise<{ headers: EventHeader[]; held: boolean; heldBy: string | null }> {
  const { limit = 500, otherDatabases } = options;
  return onEngine(database, {
    postgres: async (pg) => {
      const rows = await pg.query<{
        seq: number;
        taskId: string | null;
        workItemId: string | null;
        type: LedgerEventType;
        toState: string | null;
        _txid: string;
        _deliverable: boolean;
        _xmin: string;
      }>(
        watermarked(
          `SELECT e."seq", e."taskId", e."workItemId", e."type", e."toState", e."txid" AS "_x" FROM "LedgerEvent" e
           WHERE (e."txid", e."seq") > ($1::xid8, $2::int) ORDER BY e."txid", e."seq" LIMIT $3`,
          `c."seq", c."taskId", c."workItemId", c."type", c."toState"`,
          otherDatabases ? "$4" : null,
        ),
        otherDatabases ? [after.txid, after.seq, limit, otherDatabases] : [after.txid, after.seq, limit],
      );
      const deliverable = rows.filter((r) => r._deliverable);
      const held = deliverable.length < rows.length;
      return {
        headers: deliverable.map(({ _txid, _deliverable: _d, _xmin: _w, ...header }) => ({ ...header, position: { txid: _txid, seq: header.seq } })),
        held,
        heldBy: held ? rows[0]._xmin : null,
      };
    },
    sqlite: async () => {
      const { events, held, heldBy } = await readEventsAfter(database, after, { limit });
      return { headers: events.map(headerOf), held, heldBy };
    },
  });
}

/** A whole event's header (what readEventHeadersAfter would have read of it). */
export const headerOf = ({ event, position }: PositionedEvent): EventHeader => ({
  position,
  seq: event.seq,
  taskId: event.taskId,
  workItemId: event.workItemId,
  type: event.type,
  toState: event.toState,
});

/** Where the ledger stands now: the position of the last event that may be delivered ("the present"). */
export function headPosition(database: Database): Promise<EventPosition> {
  return onEngine(database, {
    postgres: async (pg) => {
      const [row] = await pg.query<{ txid: string; seq: number }>(
        `WITH ${WATERMARK}
         SELECT e."txid"::text AS "txid", e."seq" FROM "LedgerEvent" e, w
         WHERE e."txid" < w.xmin ORDER BY e."txid" DESC, e."seq" DESC LIMIT 1`,
      );
      return row ?? START;
    },
    sqlite: async () => {
      const last = await database.prisma.ledgerEvent.findFirst({ orderBy: { seq: "desc" }, select: { seq: true } });
      return { txid: "0", seq: last?.seq ?? 0 };
    },
  });
}

/**
 * The position of the event with this `seq` (an SSE id); 0 is the start. An event that left with its archived task is
 * a 410 saying when (its position among the events still here cannot be known exactly); an unknown id is a 400.
 */
export async function positionOfSeq(database: Database, seq: number): Promise<EventPosition> {
  if (seq === 0) return START;
  const found = await onEngine(database, {
    postgres: async (pg) => {
      const [row] = await pg.query<{ txid: string }>(`SELECT "txid"::text AS "txid" FROM "LedgerEvent" WHERE "seq" = $1`, [seq]);
      return row ? { txid: row.txid, seq } : null;
    },
    sqlite: async () => ((await database.prisma.ledgerEvent.findUnique({ where: { seq }, select: { seq: true } })) ? { txid: "0", seq } : null),
  });
  if (found) return found;
  const archived = await database.prisma.archivedTask.findFirst({
    where: { lastEventSeq: { gte: seq }, firstEventSeq: { lte: seq } },
    select: { archivedAt: true },
  });
  if (archived) {
    throw new AppError(
      ErrorCode.gone,
      `Last-Event-ID ${seq} is an event of a task archived on ${archived.archivedAt.toISOString().slice(0, 10)} (the retention policy): older history has left the ledger — reconnect without Last-Event-ID to follow from now; support's audit says where the archive is`,
      { field: "Last-Event-ID", archivedAt: archived.archivedAt.toISOString() },
    );
  }
  throw new AppError(ErrorCode.badRequest, `Last-Event-ID ${seq} is not an event of this ledger`, { field: "Last-Event-ID" });
}
