import type { PgDirect } from "../../db/pg";
import { LedgerEvent } from "../events";
import { announce, EVENT_COLUMNS, NOW } from "./pg";

// A Stop's plan, recorded once per task (PostgreSQL; SQLite takes the Prisma path in lib/cancellation/steps/3-plan.ts).

// The guarded write (the plan is recorded only while none is) and its event in one statement, without the
// transaction's four round trips through Prisma: the engine records a plan on every Stop that finds a child in flight.
const RECORD_PLAN = `
WITH ${NOW},
planned AS (
  UPDATE "Task" SET "cancelPlan" = $2::jsonb, "cancelPlannedAt" = now.t, "updatedAt" = now.t
  FROM now WHERE "id" = $1 AND "cancelPlannedAt" IS NULL
  RETURNING "id"
),
event AS (
  INSERT INTO "LedgerEvent" ${EVENT_COLUMNS}
  SELECT $1, NULL, 'task', $1, $3, '${LedgerEvent.cancellationPlanned}', NULL, NULL, $4, $2::jsonb, now.t FROM planned, now
  RETURNING "seq"
)
SELECT "seq" FROM event`;

/**
 * Records `plan` as the task's Stop plan unless one is recorded already. Returns whether this call recorded it, and
 * the plan that stands: this one, or the one recorded first (a run that lost the race uses the winner's).
 */
export async function recordPlanOnPg<P>(
  pg: PgDirect,
  input: { taskId: string; plan: P; reason: string | null; actor: string },
): Promise<{ plan: P; recorded: boolean }> {
  const [row] = await pg.query<{ seq: number }>(RECORD_PLAN, [input.taskId, JSON.stringify(input.plan), input.actor, input.reason], "stopline_record_plan");
  if (row) {
    announce([{ seq: row.seq, taskId: input.taskId, workItemId: null, type: LedgerEvent.cancellationPlanned, toState: null }]);
    return { plan: input.plan, recorded: true };
  }
  const [winner] = await pg.query<{ cancelPlan: P }>(`SELECT "cancelPlan" FROM "Task" WHERE "id" = $1`, [input.taskId], "stopline_recorded_plan");
  if (!winner) throw new Error(`task ${input.taskId} not found while recording its plan`);
  return { plan: winner.cancelPlan, recorded: false };
}
