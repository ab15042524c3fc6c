import type { PgDirect } from "../../db/pg";
import { ResourceState } from "../states";
import { type TaskEventType, LedgerEvent } from "../events";
import { checkSqlMove } from "../transitions";
import { announce, EVENT_COLUMNS, NOW } from "./pg";

// A Stop with nothing in flight, settled in one statement (PostgreSQL; SQLite takes the Prisma path).

/** The reason recorded when a task's stopping is over (both write paths use it). */
export const TASK_CANCELLED_REASON = "every child is stopped, finished, or under reconciliation";

/**
 * Each task: its row locked and read by its id (a lateral lookup; LIMIT 1 keeps the planner from folding it into a
 * join — compared on the updated rows instead, the literal stage let the planner read every task in that stage, a mass
 * Stop's every Stop in flight); the update reaches the same rows by id. Tasks in id order (the caller sorts them), so
 * two statements lock shared tasks in the same order.
 */
const SETTLE_QUIETLY = `
WITH ${NOW},
current AS (
  SELECT a."taskId", a.plan, a."planReason", k."stage", k."settledAt", k."cancelPlannedAt"
  FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY a("taskId", plan, "planReason", n)
  CROSS JOIN LATERAL (SELECT "stage", "settledAt", "cancelPlannedAt" FROM "Task" WHERE "id" = a."taskId" LIMIT 1 FOR UPDATE) k
),
settled AS (
  UPDATE "Task" k SET "cancelPlan" = COALESCE(k."cancelPlan", c.plan::jsonb), "cancelPlannedAt" = COALESCE(k."cancelPlannedAt", now.t),
    "stage" = 'cancelled', "settledAt" = now.t, "rowVersion" = k."rowVersion" + 1, "updatedAt" = now.t,
    "engineOwner" = NULL, "engineLeaseExpiresAt" = NULL -- the run is over: its lease ends with it
  FROM current c, now
  WHERE k."id" = ANY($1::text[]) AND k."id" = c."taskId" AND c."stage" = 'cancel_requested' AND c."settledAt" IS NULL
    AND NOT EXISTS (SELECT 1 FROM "WorkItem" w WHERE w."taskId" = c."taskId" AND w."status" = ANY($4::text[]))
    AND NOT EXISTS (SELECT 1 FROM "Resource" r WHERE r."taskId" = c."taskId" AND r."state" IN ('${ResourceState.held}', '${ResourceState.releaseRequested}'))
  RETURNING k."id", c."cancelPlannedAt" IS NULL AS "plannedNow", c.plan, c."planReason"
),
events AS (
  INSERT INTO "LedgerEvent" ${EVENT_COLUMNS}
  SELECT s."id", NULL, 'task', s."id", $5, v.type, v."fromState", v."toState",
    CASE v.n WHEN 1 THEN s."planReason" WHEN 2 THEN $6::text END,
    CASE v.n WHEN 1 THEN s.plan::jsonb
      WHEN 3 THEN jsonb_build_object('openReviewItems', (SELECT count(*) FROM "ReviewItem" r WHERE r."taskId" = s."id" AND r."status" = ANY($7::text[]))) END,
    now.t
  FROM settled s, now, (VALUES
    (1, '${LedgerEvent.cancellationPlanned}', NULL, NULL),
    (2, '${LedgerEvent.taskCancelled}', 'cancel_requested', 'cancelled'),
    (3, '${LedgerEvent.cancellationSettled}', NULL, NULL)
  ) AS v(n, type, "fromState", "toState")
  WHERE v.n <> 1 OR s."plannedNow"
  ORDER BY s."id", v.n
  RETURNING "seq", "type", "toState", "taskId"
)
SELECT "seq", "type", "toState", "taskId" FROM events ORDER BY "seq"`;

/** A quiet end to settle: the task and the plan recorded with it when it has none yet (its reason, if a fallback). */
export interface QuietSettlement {
  taskId: string;
  plan: unknown;
  planReason: string | null;
}

/**
 * The end of Stops that found nothing in flight, as one statement for any number of tasks: for each, the plan (if none
 * was recorded), the task's move to `cancelled` and its settlement, each with its event, in that order — the same
 * facts as the engine's full pass writes in its last transaction. Each applies only while none of its children is
 * queued or being stopped and it holds no resource (the caller checked that nothing else is pending: no effect to
 * reconcile or review). Returns the ids of the tasks it settled.
 */
export async function settleQuietlyOnPg(
  pg: PgDirect,
  tasks: QuietSettlement[],
  input: { busyStatuses: string[]; openReviewStatuses: string[]; actor: string },
): Promise<Set<string>> {
  checkSqlMove("settleStopped");
  const sorted = [...tasks].sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0));
  const rows = await pg.query<{ seq: number; type: TaskEventType; toState: string | null; taskId: string }>(
    SETTLE_QUIETLY,
    [
      sorted.map((t) => t.taskId),
      sorted.map((t) => JSON.stringify(t.plan)),
      sorted.map((t) => t.planReason),
      input.busyStatuses,
      input.actor,
      TASK_CANCELLED_REASON,
      input.openReviewStatuses,
    ],
    "stopline_settle_quietly_batch",
  );
  announce(rows.map((r) => ({ seq: r.seq, taskId: r.taskId, workItemId: null, type: r.type, toState: r.toState })));
  return new Set(rows.filter((r) => r.type === LedgerEvent.taskCancelled).map((r) => r.taskId));
}
