import type { PgDirect } from "../../db/pg";
import type { Task } from "../../db/generated/sqlite/client.ts";
import { StopScope, TaskStage } from "../states";
import { checkSqlMove } from "../transitions";
import { LedgerEvent } from "../events";
import { announce, EVENT_COLUMNS, NOW, own } from "./pg";
import { insertEvent, prepared, run, sqliteTime, type Direct } from "./sqlite";

// The cancellation boundary, on each database.

const BOUNDARY = `
WITH ${NOW},
current AS (SELECT * FROM "Task" WHERE "id" = $1 FOR UPDATE),
recorded AS (
  UPDATE "Task" t SET "stage" = 'cancel_requested', "intentVersion" = c."intentVersion" + 1, "cancelIntentVersion" = c."intentVersion" + 1,
    "cancelRequestedAt" = now.t, "cancelReason" = $2, "cancelRequestedBy" = $3, "cancelRequestedById" = $4,
    "cancelScope" = $5, "cancelScopeRef" = $6, "rowVersion" = t."rowVersion" + 1, "updatedAt" = now.t
  FROM current c, now
  WHERE t."id" = c."id" AND c."stage" = 'active' AND c."cancelRequestedAt" IS NULL
  RETURNING t.*
),
event AS (
  INSERT INTO "LedgerEvent" ${EVENT_COLUMNS}
  SELECT r."id", NULL, 'task', r."id", $3, '${LedgerEvent.taskCancelRequested}', 'active', 'cancel_requested', $2,
    jsonb_build_object('intentVersion', r."intentVersion", 'previousIntentVersion', r."intentVersion" - 1, 'scope', $5::text, 'scopeRef', $6::text), now.t
  FROM recorded r, now
  RETURNING "seq"
)
SELECT true AS "_recorded", r.*, (SELECT "seq" FROM event) AS "_seq" FROM recorded r
UNION ALL
SELECT false, c.*, NULL FROM current c WHERE NOT EXISTS (SELECT 1 FROM recorded)`;

/**
 * Invariant 1 in one statement: intent version +1, cancelRequestedAt (the database's clock), reason, actor and
 * the event, and what the Stop was for (its scope: this task, a conversation, a person, an incident). A task that
 * already has a boundary, or has ended, is returned as it is (recorded: false).
 */
export async function recordBoundaryOnPg(
  pg: PgDirect,
  input: { taskId: string; reason: string | null; actor: string; actorId?: string | null; scope?: StopScope; scopeRef?: string | null },
): Promise<{ task: Task | null; recorded: boolean }> {
  checkSqlMove("boundary");
  const [row] = await pg.query(
    BOUNDARY,
    [input.taskId, input.reason, input.actor, input.actorId ?? null, input.scope ?? StopScope.task, input.scopeRef ?? null],
    "stopline_boundary",
  );
  if (!row) return { task: null, recorded: false };
  if (row._recorded)
    announce([{ seq: row._seq as number, taskId: input.taskId, workItemId: null, type: LedgerEvent.taskCancelRequested, toState: TaskStage.cancelRequested }]);
  return { task: own<Task>(row), recorded: row._recorded as boolean };
}

/** The cancellation boundary (same row change and event as steps/1-record-boundary.ts's Prisma path). */
export function recordBoundaryOnSqlite(
  direct: Direct,
  input: { taskId: string; reason: string | null; actor: string; actorId?: string | null; scope?: StopScope; scopeRef?: string | null },
) {
  type TaskRow = {
    id: string;
    stage: string;
    intentVersion: number;
    rowVersion: number;
    cancelRequestedAt: string | null;
    cancelIntentVersion: number | null;
    cancelReason: string | null;
    cancelRequestedBy: string | null;
  };
  checkSqlMove("boundary");
  return run<{ task: TaskRow | null; recorded: boolean }>(direct, (db, now, committed) => {
    const select = prepared(
      db,
      `SELECT "id","stage","intentVersion","rowVersion","cancelRequestedAt","cancelIntentVersion","cancelReason","cancelRequestedBy" FROM "Task" WHERE "id" = ?`,
    );
    const task = select.get(input.taskId) as TaskRow | undefined;
    if (!task) return { task: null, recorded: false };
    if (task.cancelRequestedAt || task.stage !== TaskStage.active) return { task, recorded: false };
    const intentVersion = task.intentVersion + 1;
    const updated = prepared(
      db,
      `UPDATE "Task" SET "stage" = ?, "intentVersion" = ?, "cancelIntentVersion" = ?, "cancelRequestedAt" = ?, "cancelReason" = ?,
        "cancelRequestedBy" = ?, "cancelRequestedById" = ?, "cancelScope" = ?, "cancelScopeRef" = ?, "rowVersion" = "rowVersion" + 1, "updatedAt" = ?
      WHERE "id" = ? AND "stage" = ? AND "rowVersion" = ? AND "cancelRequestedAt" IS NULL
      RETURNING "id","stage","intentVersion","rowVersion","cancelRequestedAt","cancelIntentVersion","cancelReason","cancelRequestedBy"`,
    ).get(
      TaskStage.cancelRequested,
      intentVersion,
      intentVersion,
      sqliteTime(now),
      input.reason,
      input.actor,
      input.actorId ?? null,
      input.scope ?? StopScope.task,
      input.scopeRef ?? null,
      sqliteTime(now),
      task.id,
      TaskStage.active,
      task.rowVersion,
    ) as TaskRow | undefined;
    if (!updated) return { task, recorded: false }; // cannot happen under the write lock
    insertEvent(
      db,
      {
        taskId: task.id,
        entityType: "task",
        entityId: task.id,
        actor: input.actor,
        type: LedgerEvent.taskCancelRequested,
        fromState: TaskStage.active,
        toState: TaskStage.cancelRequested,
        reason: input.reason,
        data: { intentVersion, previousIntentVersion: task.intentVersion, scope: input.scope ?? StopScope.task, scopeRef: input.scopeRef ?? null },
      },
      now,
      committed,
    );
    return { task: updated, recorded: true };
  });
}
