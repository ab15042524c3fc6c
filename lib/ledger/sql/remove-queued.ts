import type { PgDirect } from "../../db/pg";
import type { Task } from "../../db/generated/sqlite/client.ts";
import { TaskStage, WorkItemStatus } from "../states";
import { checkSqlMove } from "../transitions";
import { LedgerEvent } from "../events";
import { announce, EVENT_COLUMNS, iso, NOW, own, type Row } from "./pg";
import { insertEvent, prepared, run, sqliteTime, type Direct } from "./sqlite";

// The removal of a stopped task's queued children, on each database.

const CANCEL_QUEUED = (claimRun: boolean) => `
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
)${
  claimRun
    ? `,
-- The engine run's lease on the task (engine-lease.ts), in the same statement: independent of the removal above,
-- which applies whoever wins the run.
run AS (
  UPDATE "Task" t SET "engineOwner" = $3, "engineLeaseExpiresAt" = now.t + make_interval(secs => $4::double precision / 1000)
  FROM now WHERE t."id" = $1 AND t."stage" = '${TaskStage.cancelRequested}'
    AND (t."engineLeaseExpiresAt" IS NULL OR t."engineLeaseExpiresAt" < now.t OR t."engineOwner" = $3)
  RETURNING t.*
)
-- One row: the claimed task's columns (nulls when another process holds the run) and what was removed.
SELECT r.*, e."_seqs", e."_workItemIds"
FROM (SELECT array_agg("seq") AS "_seqs", array_agg("workItemId") AS "_workItemIds" FROM events) e LEFT JOIN run r ON true`
    : `
SELECT "seq", "workItemId" FROM events`
}`;

/**
 * Every queued child of a task leaves dispatch in one statement, each with its event — only once the task's
 * boundary exists. A claim that locked a child first makes this wait for it and then skip it (it is running:
 * the engine stops it).
 */
export async function cancelQueuedOnPg(pg: PgDirect, taskId: string, actor: string): Promise<number> {
  checkSqlMove("removeQueued");
  const rows = await pg.query<{ seq: number; workItemId: string }>(CANCEL_QUEUED(false), [taskId, actor], "stopline_cancel_queued");
  announce(
    rows.map((r) => ({ seq: r.seq, taskId, workItemId: r.workItemId, type: LedgerEvent.workItemRemovedFromDispatch, toState: WorkItemStatus.cancelled })),
  );
  return rows.length;
}

/**
 * The start of an engine run on PostgreSQL, in one statement: the queued children leave dispatch (as
 * cancelQueuedOnPg) and the run's lease on the task is claimed (as claimEngineRun). Returns the task as the claim
 * left it, or null when another live process holds the run (the removal applied all the same).
 */
export async function cancelQueuedAndClaimRunOnPg(pg: PgDirect, taskId: string, actor: string, run: { owner: string; leaseMs: number }): Promise<Task | null> {
  checkSqlMove("removeQueued");
  const [row] = await pg.query<Row & { _seqs: number[] | null; _workItemIds: string[] | null }>(
    CANCEL_QUEUED(true),
    [taskId, actor, run.owner, run.leaseMs],
    "stopline_cancel_queued_claim_run",
  );
  const seqs = row._seqs ?? [];
  announce(
    seqs.map((seq, i) => ({ seq, taskId, workItemId: row._workItemIds![i], type: LedgerEvent.workItemRemovedFromDispatch, toState: WorkItemStatus.cancelled })),
  );
  return row.id == null ? null : own<Task>(row);
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
