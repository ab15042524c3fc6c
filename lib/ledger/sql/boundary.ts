import type { PgDirect } from "../../db/pg";
import type { Task } from "../../db/generated/sqlite/client.ts";
import { StopScope, TaskStage } from "../states";
import { checkSqlMove } from "../transitions";
import { LedgerEvent } from "../events";
import { announce, EVENT_COLUMNS, NOW, own, TASK_COLUMNS, type Row } from "./pg";
import { insertEvent, prepared, run, sqliteTime, type Direct } from "./sqlite";

// The cancellation boundary, on each database.

/**
 * Each task: its row locked and read by its id (a lateral lookup; LIMIT 1 keeps the planner from folding it into a
 * join), in id order (the caller sorts), so two statements lock shared tasks in the same order. A task appears once.
 */
const BOUNDARIES = `
WITH ${NOW},
current AS (
  SELECT a."reason" AS "_reason", a."actor" AS "_actor", a."actorId" AS "_actorId", a."scope" AS "_scope", a."scopeRef" AS "_scopeRef", c.*
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) a("taskId", "reason", "actor", "actorId", "scope", "scopeRef")
  CROSS JOIN LATERAL (SELECT * FROM "Task" WHERE "id" = a."taskId" LIMIT 1 FOR UPDATE) c
),
recorded AS (
  UPDATE "Task" t SET "stage" = 'cancel_requested', "intentVersion" = c."intentVersion" + 1, "cancelIntentVersion" = c."intentVersion" + 1,
    "cancelRequestedAt" = now.t, "cancelReason" = c."_reason", "cancelRequestedBy" = c."_actor", "cancelRequestedById" = c."_actorId",
    "cancelScope" = c."_scope", "cancelScopeRef" = c."_scopeRef", "rowVersion" = t."rowVersion" + 1, "updatedAt" = now.t
  FROM current c, now
  WHERE t."id" = ANY($1::text[]) AND t."id" = c."id" AND c."stage" = 'active' AND c."cancelRequestedAt" IS NULL
  RETURNING t.*, c."_reason", c."_actor", c."_scope", c."_scopeRef"
),
event AS (
  INSERT INTO "LedgerEvent" ${EVENT_COLUMNS}
  SELECT r."id", NULL, 'task', r."id", r."_actor", '${LedgerEvent.taskCancelRequested}', 'active', 'cancel_requested', r."_reason",
    jsonb_build_object('intentVersion', r."intentVersion", 'previousIntentVersion', r."intentVersion" - 1, 'scope', r."_scope", 'scopeRef', r."_scopeRef"), now.t
  FROM recorded r, now
  ORDER BY r."id"
  RETURNING "seq", "taskId"
)
-- The tasks recorded now, those found as they were (already stopped, or ended), and the events in one row of two arrays
-- (sequence numbers, task ids) paired by the caller: joined here (CTEs the planner guesses at one row each) they were
-- nested loops, quadratic in the batch.
SELECT 'recorded' AS "_kind", NULL::int[] AS "_seqs", NULL::text[] AS "_ids", ${TASK_COLUMNS.map((c) => `r."${c}"`).join(", ")} FROM recorded r
UNION ALL
SELECT 'events', array_agg(e."seq"), array_agg(e."taskId"), ${TASK_COLUMNS.map(() => "NULL").join(", ")} FROM event e
UNION ALL
SELECT 'current', NULL, NULL, ${TASK_COLUMNS.map((c) => `c."${c}"`).join(", ")} FROM current c WHERE NOT EXISTS (SELECT 1 FROM recorded r WHERE r."id" = c."id")`;

export interface BoundaryRequest {
  taskId: string;
  reason: string | null;
  actor: string;
  actorId?: string | null;
  scope?: StopScope;
  scopeRef?: string | null;
}

/**
 * Invariant 1 for any number of tasks (each once) in one statement: for each, intent version +1, cancelRequestedAt (the
 * database's clock), reason, actor and the event, and what the Stop was for (its scope: this task, a conversation, a
 * person, an incident). A task that already has a boundary, or has ended, is returned as it is (recorded: false); one
 * that does not exist, with task null. Answers in the order asked.
 */
export async function recordBoundariesOnPg(pg: PgDirect, requests: BoundaryRequest[]): Promise<{ task: Task | null; recorded: boolean }[]> {
  checkSqlMove("boundary");
  const sorted = [...requests].sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0));
  if (new Set(sorted.map((r) => r.taskId)).size !== sorted.length) throw new Error("recordBoundariesOnPg: each task at most once per statement");
  const rows = await pg.query(
    BOUNDARIES,
    [
      sorted.map((r) => r.taskId),
      sorted.map((r) => r.reason),
      sorted.map((r) => r.actor),
      sorted.map((r) => r.actorId ?? null),
      sorted.map((r) => r.scope ?? StopScope.task),
      sorted.map((r) => r.scopeRef ?? null),
    ],
    "stopline_boundaries",
  );
  const recorded = new Map<string, Row>();
  const current = new Map<string, Row>();
  const events: Parameters<typeof announce>[0] = [];
  for (const row of rows) {
    if (row._kind === "recorded") recorded.set(row.id as string, row);
    else if (row._kind === "current") current.set(row.id as string, row);
    else {
      const taskIds = (row._ids as string[] | null) ?? [];
      for (const [i, seq] of ((row._seqs as number[] | null) ?? []).entries())
        events.push({ seq, taskId: taskIds[i], workItemId: null, type: LedgerEvent.taskCancelRequested, toState: TaskStage.cancelRequested });
    }
  }
  announce(events.sort((a, b) => a.seq - b.seq));
  return requests.map((r) => {
    const row = recorded.get(r.taskId) ?? current.get(r.taskId);
    return row ? { task: own<Task>(row), recorded: recorded.has(r.taskId) } : { task: null, recorded: false };
  });
}

/** The cancellation boundary (same row change and event as steps/1-record-boundary.ts's Prisma path). */
export function recordBoundaryOnSqlite(direct: Direct, input: BoundaryRequest) {
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
