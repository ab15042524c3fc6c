import type { PgDirect } from "../../db/pg";
import { LedgerEvent } from "../events";
import { announce, EVENT_COLUMNS, NOW } from "./pg";

// Stops' plans, recorded once per task (PostgreSQL; SQLite takes the Prisma path in lib/cancellation/steps/3-plan.ts).

// The guarded writes (a plan is recorded only while none is) and their events in one statement for several tasks,
// without a transaction's four round trips through Prisma: the engine records a plan on every Stop that finds a child
// in flight, and the plans of Stops that arrive together go out together (3-plan.ts). Each task is its own
// compare-and-set; the events keep the order of the input.
const RECORD_PLANS = `
WITH ${NOW},
asked AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS a("taskId", plan, reason, actor, ord)),
planned AS (
  UPDATE "Task" t SET "cancelPlan" = a.plan::jsonb, "cancelPlannedAt" = now.t, "updatedAt" = now.t
  FROM now, asked a WHERE t."id" = a."taskId" AND t."cancelPlannedAt" IS NULL
  RETURNING t."id"
),
event AS (
  INSERT INTO "LedgerEvent" ${EVENT_COLUMNS}
  SELECT a."taskId", NULL, 'task', a."taskId", a.actor, '${LedgerEvent.cancellationPlanned}', NULL, NULL, a.reason, a.plan::jsonb, now.t
  FROM asked a JOIN planned p ON p."id" = a."taskId", now
  ORDER BY a.ord
  RETURNING "seq", "taskId"
)
SELECT "seq", "taskId" FROM event`;

export interface PlanToRecord<P> {
  taskId: string;
  plan: P;
  reason: string | null;
  actor: string;
}

/**
 * Records each input's plan as its task's Stop plan unless one is recorded already (the task ids must be distinct, in
 * id order: the rows are locked in that order, as every other batched write of tasks does). Returns, per input in its
 * order, whether this call recorded it and the plan that stands: its own, or the one recorded first (a run that lost
 * the race uses the winner's); null for a task that does not exist.
 */
export async function recordPlansOnPg<P>(pg: PgDirect, inputs: PlanToRecord<P>[]): Promise<({ plan: P; recorded: boolean } | null)[]> {
  const rows = await pg.query<{ seq: number; taskId: string }>(
    RECORD_PLANS,
    [inputs.map((i) => i.taskId), inputs.map((i) => JSON.stringify(i.plan)), inputs.map((i) => i.reason), inputs.map((i) => i.actor)],
    "stopline_record_plans",
  );
  announce(rows.map((r) => ({ seq: r.seq, taskId: r.taskId, workItemId: null, type: LedgerEvent.cancellationPlanned, toState: null })));
  const recorded = new Set(rows.map((r) => r.taskId));
  const lost = inputs.filter((i) => !recorded.has(i.taskId)).map((i) => i.taskId);
  const winners = new Map<string, P>();
  if (lost.length)
    for (const w of await pg.query<{ id: string; cancelPlan: P }>(
      `SELECT "id", "cancelPlan" FROM "Task" WHERE "id" = ANY($1::text[])`,
      [lost],
      "stopline_recorded_plans",
    ))
      winners.set(w.id, w.cancelPlan);
  return inputs.map((i) => {
    if (recorded.has(i.taskId)) return { plan: i.plan, recorded: true };
    return winners.has(i.taskId) ? { plan: winners.get(i.taskId)!, recorded: false } : null;
  });
}
