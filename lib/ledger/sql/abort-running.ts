import type { PgDirect } from "../../db/pg";
import { Mechanism, WorkItemStatus } from "../states";
import { checkSqlMove } from "../transitions";
import { LedgerEvent } from "../events";
import { announce, EVENT_COLUMNS, NOW } from "./pg";
import { insertEvent, prepared, run, sqliteTime, type Direct } from "./sqlite";

// Step 4 of a Stop for the children stopped by their AbortSignal, on each database: every such child of the task (on
// PostgreSQL with those of other tasks whose passes got there at the same moment) in one statement, or on SQLite one
// transaction: a running one moves to `cancelling` with its event, and each one's stop action is logged as the
// engine's step — instead of two transactions per child.

/** A child stopped by its AbortSignal: its planned action (`abort` or `abort_await_partial`) and the status the pass read. */
export interface AbortTarget {
  id: string;
  action: string;
  seenStatus: string;
}

/** Per child, in the order given: whether this call moved it to `cancelling` (false: it was no longer running). */
export type AbortOutcome = { id: string; moved: boolean; logged: boolean };

const ABORT_FIRED = "AbortSignal fired; waiting for the child to stop";
/** The step's detail: the signal fired by this call, or the status the child had already left running for. */
export const abortStepDetail = (moved: boolean, seenStatus: string) => (moved ? ABORT_FIRED : `already ${seenStatus}`);

// One statement: the guarded moves (running → cancelling, only a running abort-signal child of this task), then the
// events in the order the Prisma path writes them — per child its move, then its step — through one INSERT whose
// rows are numbered in that order. A child that is not moved gets its step only on the first run ($6).
//
// Deadlocks: a worker's report statement finishes several items of any tasks at once, locking their rows in no fixed
// order; moving several rows here while it runs could wait for one of its rows while it waits for one of these. So the
// moves lock with SKIP LOCKED and never wait: a child whose row is locked right now (its worker is reporting it, a
// heartbeat) is returned as skipped, without a step, and moved alone by the caller (one row cannot close a cycle).
const ABORT_RUNNING = (skipLocked: boolean) => `
WITH ${NOW},
child AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::boolean[]) WITH ORDINALITY AS c(id, action, seen, "taskId", "firstRun", ord)),
running AS (
  SELECT w."id" FROM "WorkItem" w JOIN child c ON c.id = w."id"
  WHERE w."taskId" = c."taskId" AND w."status" = '${WorkItemStatus.running}' AND w."mechanism" = '${Mechanism.abortSignal}' AND c.seen = '${WorkItemStatus.running}'
),
locked AS (
  SELECT w."id" FROM "WorkItem" w JOIN running r ON r."id" = w."id"
  WHERE w."status" = '${WorkItemStatus.running}'
  FOR UPDATE OF w${skipLocked ? " SKIP LOCKED" : ""}
),
skipped AS (${skipLocked ? `SELECT r."id" FROM running r WHERE NOT EXISTS (SELECT 1 FROM locked l WHERE l."id" = r."id")` : `SELECT NULL::text AS "id" WHERE false`}),
moved AS (
  UPDATE "WorkItem" w SET "status" = '${WorkItemStatus.cancelling}', "rowVersion" = w."rowVersion" + 1, "updatedAt" = now.t
  FROM now, locked l
  WHERE w."id" = l."id" AND w."status" = '${WorkItemStatus.running}'
  RETURNING w."id"
),
events AS (
  INSERT INTO "LedgerEvent" ${EVENT_COLUMNS}
  SELECT e."taskId", e.id, e.entity_type, e.entity_id, $6, e.type, e.from_state, e.to_state, e.reason, e.data, now.t
  FROM (
    SELECT c.ord, 0 AS k, c."taskId", c.id, 'workItem' AS entity_type, c.id AS entity_id, '${LedgerEvent.workItemCancelling}' AS type,
      '${WorkItemStatus.running}' AS from_state, '${WorkItemStatus.cancelling}' AS to_state, 'AbortSignal sent' AS reason, NULL::jsonb AS data
    FROM child c JOIN moved m ON m."id" = c.id
    UNION ALL
    SELECT c.ord, 1, c."taskId", c.id, 'task', c."taskId", '${LedgerEvent.cancellationStep}', NULL, NULL,
      CASE WHEN m."id" IS NOT NULL THEN '${ABORT_FIRED}' ELSE 'already ' || c.seen END,
      jsonb_build_object('action', c.action, 'success', true)
    FROM child c LEFT JOIN moved m ON m."id" = c.id
    WHERE (m."id" IS NOT NULL OR c."firstRun") AND NOT EXISTS (SELECT 1 FROM skipped s WHERE s."id" = c.id)
  ) e, now
  ORDER BY e.ord, e.k
  RETURNING "seq", "taskId", "workItemId", "type", "toState"
)
SELECT "seq", "taskId", "workItemId", "type", "toState" FROM events
UNION ALL SELECT NULL, NULL, "id", 'skipped', NULL FROM skipped
ORDER BY "seq"`;

type AbortRow = {
  seq: number | null;
  taskId: string | null;
  workItemId: string;
  type: typeof LedgerEvent.workItemCancelling | typeof LedgerEvent.cancellationStep | "skipped";
  toState: string | null;
};

/** One task's children to stop by their AbortSignal, as one pass asks (firstRun: its steps are logged even if not moved). */
export interface AbortRequest {
  taskId: string;
  targets: AbortTarget[];
  firstRun: boolean;
}

/**
 * The children of one or more tasks (each task at most once), in one statement. Returns, per request in its order,
 * the outcome of each of its targets in theirs.
 */
export async function abortRunningOnPg(pg: PgDirect, requests: AbortRequest[], actor: string): Promise<AbortOutcome[][]> {
  checkSqlMove("abortRunning");
  type Flat = AbortTarget & { taskId: string; firstRun: boolean };
  const statement = (some: Flat[], skipLocked: boolean) =>
    pg.query<AbortRow>(
      ABORT_RUNNING(skipLocked),
      [some.map((t) => t.id), some.map((t) => t.action), some.map((t) => t.seenStatus), some.map((t) => t.taskId), some.map((t) => t.firstRun), actor],
      skipLocked ? "stopline_abort_running" : "stopline_abort_running_one",
    );
  const flat: Flat[] = requests.flatMap((r) => r.targets.map((t) => ({ ...t, taskId: r.taskId, firstRun: r.firstRun })));
  const rows = await statement(flat, flat.length > 1);
  // Children whose row was locked: one at a time, each waiting for its lock (a single row cannot close a cycle).
  for (const row of rows.filter((r) => r.type === "skipped"))
    rows.push(
      ...(await statement(
        flat.filter((t) => t.id === row.workItemId),
        false,
      )),
    );
  const recorded = rows.filter((r): r is AbortRow & { seq: number; type: Exclude<AbortRow["type"], "skipped"> } => r.type !== "skipped");
  announce(recorded.map((r) => ({ seq: r.seq, taskId: r.taskId, workItemId: r.workItemId, type: r.type, toState: r.toState })).sort((a, b) => a.seq - b.seq));
  const moved = new Set(recorded.filter((r) => r.type === LedgerEvent.workItemCancelling).map((r) => r.workItemId));
  const logged = new Set(recorded.filter((r) => r.type === LedgerEvent.cancellationStep).map((r) => r.workItemId));
  return requests.map((r) => r.targets.map((t) => ({ id: t.id, moved: moved.has(t.id), logged: logged.has(t.id) })));
}

export function abortRunningOnSqlite(direct: Direct, taskId: string, targets: AbortTarget[], actor: string, firstRun: boolean): Promise<AbortOutcome[]> {
  checkSqlMove("abortRunning");
  return run<AbortOutcome[]>(direct, (db, now, committed) => {
    const update = prepared(
      db,
      `UPDATE "WorkItem" SET "status" = ?, "rowVersion" = "rowVersion" + 1, "updatedAt" = ?
       WHERE "id" = ? AND "taskId" = ? AND "status" = ? AND "mechanism" = ? RETURNING "id"`,
    );
    return targets.map((t) => {
      const moved =
        t.seenStatus === WorkItemStatus.running &&
        !!update.get(WorkItemStatus.cancelling, sqliteTime(now), t.id, taskId, WorkItemStatus.running, Mechanism.abortSignal);
      if (moved)
        insertEvent(
          db,
          {
            taskId,
            workItemId: t.id,
            entityType: "workItem",
            entityId: t.id,
            actor,
            type: LedgerEvent.workItemCancelling,
            fromState: WorkItemStatus.running,
            toState: WorkItemStatus.cancelling,
            reason: "AbortSignal sent",
          },
          now,
          committed,
        );
      const logged = moved || firstRun;
      if (logged)
        insertEvent(
          db,
          {
            taskId,
            workItemId: t.id,
            entityType: "task",
            entityId: taskId,
            actor,
            type: LedgerEvent.cancellationStep,
            reason: abortStepDetail(moved, t.seenStatus),
            data: { action: t.action, success: true },
          },
          now,
          committed,
        );
      return { id: t.id, moved, logged };
    });
  });
}
