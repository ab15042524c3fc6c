import type { PgDirect } from "../../db/pg";
import type { Task } from "../../db/generated/sqlite/client.ts";
import { TaskStage, WorkItemStatus } from "../states";
import { checkSqlMove } from "../transitions";
import { LedgerEvent } from "../events";
import { announce, EVENT_COLUMNS, iso, NOW, own, type Row } from "./pg";
import { insertEvent, prepared, run, sqliteTime, type Direct } from "./sqlite";

// The removal of a stopped task's queued children, on each database.

const CANCEL_QUEUED = `
WITH ${NOW},
boundary AS (SELECT "cancelRequestedAt" AS at FROM "Task" WHERE "id" = $1 AND "cancelRequestedAt" IS NOT NULL),
-- The task's children read by task, their status compared with a scalar subquery, not the literal 'queued': the
-- literal lets the planner read them through the queue's partial index, which statistics gathered before a burst of
-- scheduling call small — then every Stop reads the whole queue (issue 22 §5: 5,000 queued items, 2–15 ms a Stop).
removed AS (
  UPDATE "WorkItem" w SET "status" = 'cancelled', "finishedAt" = now.t, "rowVersion" = w."rowVersion" + 1, "updatedAt" = now.t
  FROM now, boundary WHERE w."taskId" = $1 AND w."status" = (SELECT 'queued'::text)
  RETURNING w."id"
),
events AS (
  INSERT INTO "LedgerEvent" ${EVENT_COLUMNS}
  SELECT $1, r."id", 'workItem', r."id", $2, '${LedgerEvent.workItemRemovedFromDispatch}', 'queued', 'cancelled',
    'never started: cancelled at ' || ${iso(`b.at`)}, NULL, now.t
  FROM removed r, boundary b, now
  RETURNING "seq", "workItemId"
)
SELECT "seq", "workItemId" FROM events`;

/**
 * The start of the engine's runs of several tasks (those whose Stops this process heard while the previous start was
 * in flight), as one statement: each task's queued children leave dispatch, and each run's lease is claimed — for
 * each task what CANCEL_QUEUED and claimEngineRun do, independent of the others'. Each task is read by its id, each
 * one's children by its id (a lateral per task: as a join, the planner may read the whole queue).
 */
const CANCEL_QUEUED_AND_CLAIM_RUNS = `
WITH ${NOW},
-- Each task by its id, a lateral lookup (LIMIT 1 keeps the planner from folding it into a join: as a join it read every
-- stopped task through Task_stops_idx, which statistics from before a mass Stop call small).
boundary AS (SELECT t."id" AS "taskId", t."cancelRequestedAt" AS at FROM unnest($1::text[]) i("id") CROSS JOIN LATERAL (
  SELECT "id", "cancelRequestedAt" FROM "Task" WHERE "id" = i."id" LIMIT 1) t WHERE t."cancelRequestedAt" IS NOT NULL),
-- Each task's queued children by its id (OFFSET 0 keeps the lateral a per-task index read; folded into a join, the
-- planner may read the whole queue).
queued AS (
  SELECT c."id", b."taskId", b.at FROM boundary b CROSS JOIN LATERAL (
    SELECT w."id" FROM "WorkItem" w WHERE w."taskId" = b."taskId" AND w."status" = (SELECT 'queued'::text) OFFSET 0) c
),
removed AS (
  UPDATE "WorkItem" w SET "status" = 'cancelled', "finishedAt" = now.t, "rowVersion" = w."rowVersion" + 1, "updatedAt" = now.t
  FROM now, queued q WHERE w."id" = q."id" AND w."status" = (SELECT 'queued'::text)
  RETURNING w."id", w."taskId"
),
events AS (
  INSERT INTO "LedgerEvent" ${EVENT_COLUMNS}
  SELECT r."taskId", r."id", 'workItem', r."id", $2, '${LedgerEvent.workItemRemovedFromDispatch}', 'queued', 'cancelled',
    'never started: cancelled at ' || ${iso(`b.at`)}, NULL, now.t
  FROM removed r JOIN boundary b ON b."taskId" = r."taskId", now
  RETURNING "seq", "workItemId", "taskId"
),
-- Each run's lease on its task (engine-lease.ts), in the same statement: independent of the removal above, which
-- applies whoever wins the run.
run AS (
  UPDATE "Task" t SET "engineOwner" = $3, "engineLeaseExpiresAt" = now.t + make_interval(secs => $4::double precision / 1000)
  -- The stage compared with a scalar subquery, not the literal: the literal let the planner read every task being
  -- stopped through the index on "stage" (statistics from before a mass Stop call them few) and join them to the ids.
  FROM now WHERE t."id" = ANY($1::text[]) AND t."stage" = (SELECT '${TaskStage.cancelRequested}'::text)
    AND (t."engineLeaseExpiresAt" IS NULL OR t."engineLeaseExpiresAt" < now.t OR t."engineOwner" = $3)
  RETURNING t.*
)
-- One row per task asked for: its columns as the claim left them (nulls when another process holds the run) and what was removed.
SELECT i."id" AS "_taskId", r.*, e."_seqs", e."_workItemIds"
FROM unnest($1::text[]) i("id")
  LEFT JOIN run r ON r."id" = i."id"
  LEFT JOIN (SELECT "taskId", array_agg("seq" ORDER BY "seq") AS "_seqs", array_agg("workItemId" ORDER BY "seq") AS "_workItemIds" FROM events GROUP BY "taskId") e
    ON e."taskId" = i."id"`;

/**
 * Every queued child of a task leaves dispatch in one statement, each with its event — only once the task's
 * boundary exists. A claim that locked a child first makes this wait for it and then skip it (it is running:
 * the engine stops it).
 */
export async function cancelQueuedOnPg(pg: PgDirect, taskId: string, actor: string): Promise<number> {
  checkSqlMove("removeQueued");
  const rows = await pg.query<{ seq: number; workItemId: string }>(CANCEL_QUEUED, [taskId, actor], "stopline_cancel_queued");
  announce(
    rows.map((r) => ({ seq: r.seq, taskId, workItemId: r.workItemId, type: LedgerEvent.workItemRemovedFromDispatch, toState: WorkItemStatus.cancelled })),
  );
  return rows.length;
}

/**
 * The start of engine runs on PostgreSQL, in one statement for any number of tasks: their queued children leave
 * dispatch (as cancelQueuedOnPg) and each run's lease is claimed (as claimEngineRun). Returns, per task, the task as
 * the claim left it, or null when another live process holds its run (the removal applied all the same).
 */
export async function cancelQueuedAndClaimRunsOnPg(
  pg: PgDirect,
  taskIds: string[],
  actor: string,
  run: { owner: string; leaseMs: number },
): Promise<Map<string, Task | null>> {
  checkSqlMove("removeQueued");
  const rows = await pg.query<Row & { _taskId: string; _seqs: number[] | null; _workItemIds: string[] | null }>(
    CANCEL_QUEUED_AND_CLAIM_RUNS,
    [taskIds, actor, run.owner, run.leaseMs],
    "stopline_cancel_queued_claim_runs",
  );
  const events: Parameters<typeof announce>[0] = [];
  const runs = new Map<string, Task | null>();
  for (const row of rows) {
    const seqs = row._seqs ?? [];
    for (const [i, seq] of seqs.entries())
      events.push({
        seq,
        taskId: row._taskId,
        workItemId: row._workItemIds![i],
        type: LedgerEvent.workItemRemovedFromDispatch,
        toState: WorkItemStatus.cancelled,
      });
    runs.set(row._taskId, row.id == null ? null : own<Task>(row));
  }
  announce(events.sort((a, b) => a.seq - b.seq));
  return runs;
}

/** Removes every queued child of a task from dispatch (same rows and events as execute-cancellation's Prisma path). */
export function cancelQueuedOnSqlite(direct: Direct, taskId: string, actor: string) {
  checkSqlMove("removeQueued");
  return run<number>(direct, (db, now, committed) => {
    const task = prepared(db, `SELECT "cancelRequestedAt" FROM "Task" WHERE "id" = ?`).get(taskId) as { cancelRequestedAt: string | null } | undefined;
    if (!task?.cancelRequestedAt) return 0; // only once the boundary exists
    const boundary = new Date(task.cancelRequestedAt);
    const rows = prepared(db, `SELECT "id" FROM "WorkItem" WHERE "taskId" = ? AND "status" = ?`);
    const ids = (rows.all(taskId, WorkItemStatus.queued) as { id: string }[]).map((r) => r.id);
    const update = prepared(
      db,
      `UPDATE "WorkItem" SET "status" = ?, "finishedAt" = ?, "rowVersion" = "rowVersion" + 1, "updatedAt" = ? WHERE "id" = ? AND "status" = ? RETURNING "id"`,
    );
    for (const id of ids) {
      if (!update.get(WorkItemStatus.cancelled, sqliteTime(now), sqliteTime(now), id, WorkItemStatus.queued)) continue;
      insertEvent(
        db,
        {
          taskId,
          workItemId: id,
          entityType: "workItem",
          entityId: id,
          actor,
          type: LedgerEvent.workItemRemovedFromDispatch,
          fromState: WorkItemStatus.queued,
          toState: WorkItemStatus.cancelled,
          reason: `never started: cancelled at ${boundary.toISOString()}`,
        },
        now,
        committed,
      );
    }
    return ids.length;
  });
}
