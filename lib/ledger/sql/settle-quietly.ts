import type { PgDirect } from "../../db/pg";
import { ResourceState } from "../states";
import { type TaskEventType, LedgerEvent } from "../events";
import { checkSqlMove } from "../transitions";
import { announce, EVENT_COLUMNS, NOW } from "./pg";

// A Stop with nothing in flight, settled in one statement (PostgreSQL; SQLite takes the Prisma path).

/** The reason recorded when a task's stopping is over (both write paths use it). */
export const TASK_CANCELLED_REASON = "every child is stopped, finished, or under reconciliation";

const SETTLE_QUIETLY = `
WITH ${NOW},
-- The task's row, locked: the compare-and-set reads its stage here, by id. Compared on the updated row instead, the
-- literal stage let the planner read every task in that stage (a mass Stop: every Stop in flight) and join by id.
current AS (SELECT "id", "stage", "settledAt", "cancelPlannedAt" FROM "Task" WHERE "id" = $1 FOR UPDATE),
settled AS (
  UPDATE "Task" k SET "cancelPlan" = COALESCE(k."cancelPlan", $2::jsonb), "cancelPlannedAt" = COALESCE(k."cancelPlannedAt", now.t),
    "stage" = 'cancelled', "settledAt" = now.t, "rowVersion" = k."rowVersion" + 1, "updatedAt" = now.t,
    "engineOwner" = NULL, "engineLeaseExpiresAt" = NULL -- the run is over: its lease ends with it
  FROM current c, now
  WHERE k."id" = c."id" AND c."stage" = 'cancel_requested' AND c."settledAt" IS NULL
    AND NOT EXISTS (SELECT 1 FROM "WorkItem" w WHERE w."taskId" = $1 AND w."status" = ANY($3::text[]))
    AND NOT EXISTS (SELECT 1 FROM "Resource" r WHERE r."taskId" = $1 AND r."state" IN ('${ResourceState.held}', '${ResourceState.releaseRequested}'))
  RETURNING k."id", c."cancelPlannedAt" IS NULL AS "plannedNow"
),
events AS (
  INSERT INTO "LedgerEvent" ${EVENT_COLUMNS}
  SELECT $1, NULL, 'task', $1, $4, v.type, v."fromState", v."toState", v.reason, v.data, now.t
  FROM settled s, now, (VALUES
    (1, '${LedgerEvent.cancellationPlanned}', NULL, NULL, $5::text, $2::jsonb),
    (2, '${LedgerEvent.taskCancelled}', 'cancel_requested', 'cancelled', $6::text, NULL::jsonb),
    (3, '${LedgerEvent.cancellationSettled}', NULL, NULL, NULL::text,
       jsonb_build_object('openReviewItems', (SELECT count(*) FROM "ReviewItem" r WHERE r."taskId" = $1 AND r."status" = ANY($7::text[]))))
  ) AS v(n, type, "fromState", "toState", reason, data)
  WHERE v.n <> 1 OR s."plannedNow"
  ORDER BY v.n
  RETURNING "seq", "type", "toState"
)
SELECT "seq", "type", "toState" FROM events ORDER BY "seq"`;

/**
 * The end of a Stop that found nothing in flight, as one statement: the plan (if none was recorded), the task's
 * move to `cancelled` and its settlement, each with its event, in that order — the same facts as the engine's
 * full pass writes in its last transaction. Applies only while no child is queued or being stopped (the
 * caller checked that nothing else is pending: no resource held, no effect to reconcile or review). Returns
 * whether it settled the task.
 */
export async function settleQuietlyOnPg(
  pg: PgDirect,
  input: { taskId: string; plan: unknown; planReason: string | null; busyStatuses: string[]; openReviewStatuses: string[]; actor: string },
): Promise<boolean> {
  checkSqlMove("settleStopped");
  const rows = await pg.query<{ seq: number; type: TaskEventType; toState: string | null }>(
    SETTLE_QUIETLY,
    [input.taskId, JSON.stringify(input.plan), input.busyStatuses, input.actor, input.planReason, TASK_CANCELLED_REASON, input.openReviewStatuses],
    "stopline_settle_quietly",
  );
  announce(rows.map((r) => ({ seq: r.seq, taskId: input.taskId, workItemId: null, type: r.type, toState: r.toState })));
  return rows.some((r) => r.type === LedgerEvent.taskCancelled);
}
