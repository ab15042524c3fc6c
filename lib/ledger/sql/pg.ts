import type { PgDirect } from "../../db/pg";
import { Prisma } from "../../db/generated/sqlite/client.ts";
import { publishCommitted, type CommittedEvent } from "../../events/bus";
import type { TaskEventType } from "../events";
import type { EventInput } from "../write";

/**
 * The ledger's hot path on PostgreSQL — what its statements (lib/ledger/sql/*.ts) share. The hot path: claims and reports (any number of them together), heartbeat, checkpoint,
 * the boundary, the removal of queued children and task creation — each ONE statement on the app's pool (`pg` directly, autocommit): the
 * state compare-and-set, its event and the database clock in one CTE, so the change and its event commit
 * together (invariant 9) without a BEGIN/COMMIT round trip. Same rows and events as the Prisma path; the
 * decisions that are not a plain guard (why a call is refused) are the shared pure functions, taken on a
 * slow path only when the guarded statement changed nothing.
 *
 * Locking, without a global lock:
 * - a claim locks its item `FOR UPDATE SKIP LOCKED` (workers never wait on each other) and its task
 *   `FOR KEY SHARE`; the boundary locks the task `FOR UPDATE`, which conflicts with that share lock. So a claim
 *   either commits before the boundary (the engine then sees the item running and stops it) or waits for it
 *   and re-checks the task (READ COMMITTED re-evaluates a locked row's conditions on its newest version): after
 *   the boundary's commit nothing is claimed (invariant 2). The checkpoint locks the same way.
 * - every other write is guarded by the row's state (and lease token), so a lost race changes nothing.
 */

export type Row = Record<string, unknown>;

// The database's clock, read once per statement (a volatile CTE is evaluated once), in UTC like Prisma's DateTime.
export const NOW = `now AS MATERIALIZED (SELECT timezone('UTC', clock_timestamp()) AS t)`;
export const EVENT_COLUMNS = `("taskId","workItemId","entityType","entityId","actor","type","fromState","toState","reason","data","createdAt")`;
export const iso = (column: string) => `to_char(${column}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
export const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

/** The events a statement committed, announced in-process after the commit (types from the catalogue). */
export function announce(rows: { seq: number; taskId: string | null; workItemId: string | null; type: TaskEventType; toState: string | null }[]) {
  const committed: CommittedEvent[] = rows.map((r) => ({ seq: r.seq, taskId: r.taskId, workItemId: r.workItemId, type: r.type, toState: r.toState }));
  publishCommitted(committed);
}

/** Strips the statement's bookkeeping columns (`_…`) from a returned row. */
export function own<T>(row: Row): T {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) if (!k.startsWith("_")) out[k] = v;
  return out as T;
}

/** Every column of a work item, from the one model source (prisma/models.prisma). */
export const WORK_ITEM_COLUMNS = Object.values(Prisma.WorkItemScalarFieldEnum);
/** Every column of a task, from the one model source. */
export const TASK_COLUMNS = Object.values(Prisma.TaskScalarFieldEnum);

/** An event on its own (one statement): the record of a refused call (a stale lease token, a refused checkpoint). */
export async function insertEventOnPg(pg: PgDirect, e: EventInput): Promise<number> {
  const [row] = await pg.query<{ seq: number }>(
    `INSERT INTO "LedgerEvent" ${EVENT_COLUMNS} VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10::jsonb, timezone('UTC', clock_timestamp())) RETURNING "seq"`,
    [e.taskId ?? null, e.workItemId ?? null, e.entityType, e.entityId, e.actor, e.type, e.fromState ?? null, e.toState ?? null, e.reason ?? null, json(e.data)],
    "stopline_insert_event",
  );
  announce([{ seq: row.seq, taskId: e.taskId ?? null, workItemId: e.workItemId ?? null, type: e.type, toState: e.toState ?? null }]);
  return row.seq;
}
