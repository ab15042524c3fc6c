import { onEngine, type Database } from "../db/client";
import type { WorkItem } from "../db/generated/sqlite/client.ts";
import { ACTIVE_ITEM_STATUSES, isTerminalItem, WorkItemStatus } from "../ledger/states";
import type { ToolRegistry } from "../tools/registry";
import { phaseOf, rulePlan, validatePlan, type ActiveToolCall, type CancellationPlan } from "./plan";

/**
 * What the engine plans over, and how — shared by the engine (execute-cancellation.ts) and the Stop preview
 * (preview-stop.ts), so that the preview cannot disagree with what Stop then does: the same children, in the same
 * order, described to the planner the same way, planned by the same function.
 */

/**
 * The children a plan covers. With a boundary: those still active, and those that ended after it (removed from
 * dispatch, or stopped by themselves on its signal) — seen as they were at the boundary. Without one (a preview):
 * those active now, which are exactly those a boundary recorded now would find.
 */
/** Whether work item `w` is a child a plan covers (PostgreSQL): of task `taskId`, active (`statuses`) or ended at or after `at` (ISO text, or null). */
export const isChildToPlanSql = (w: string, taskId: string, statuses: string, at: string) =>
  `${w}."taskId" = ${taskId} AND (${w}."status" = ANY(${statuses}::text[]) OR ${w}."finishedAt" >= (${at}::timestamptz AT TIME ZONE 'UTC'))`;
/** The children a plan covers, as SQL (PostgreSQL): $1 task id, $2 the active statuses, $3 the boundary (ISO, or null). */
export const CHILDREN_TO_PLAN_SQL = `SELECT * FROM "WorkItem" w WHERE ${isChildToPlanSql("w", "$1", "$2", "$3")}`;

export async function childrenToPlan(database: Database, taskId: string, boundaryAt: Date | null): Promise<{ found: WorkItem[]; items: WorkItem[] }> {
  // On PostgreSQL one statement on `pg` (the engine reads this on every Stop; Prisma's executor costs more CPU).
  const found = await onEngine(database, {
    postgres: (pg) =>
      pg.query<WorkItem>(
        `${CHILDREN_TO_PLAN_SQL} ORDER BY "createdAt", "id"`,
        [taskId, ACTIVE_ITEM_STATUSES, boundaryAt?.toISOString() ?? null],
        "stopline_children_to_plan",
      ),
    sqlite: () =>
      database.prisma.workItem.findMany({
        where: boundaryAt
          ? { taskId, OR: [{ status: { in: ACTIVE_ITEM_STATUSES } }, { finishedAt: { gte: boundaryAt } }] }
          : { taskId, status: { in: ACTIVE_ITEM_STATUSES } },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      }),
  });
  return { found, items: found.map(atBoundary) };
}

/** A child that ended after the boundary, as it was at the boundary: queued if it never started, else running. */
export const atBoundary = (i: WorkItem): WorkItem =>
  isTerminalItem(i.status) ? { ...i, status: i.startedAt ? WorkItemStatus.running : WorkItemStatus.queued } : i;

/** The planner's view of each child (the seed's ACTIVE_TOOL_CALLS). */
export function activeCallsOf(items: WorkItem[], registry: ToolRegistry): ActiveToolCall[] {
  return items.map((i) => ({
    id: i.id,
    tool: i.toolName,
    kind: i.kind,
    status: i.status,
    phase: phaseOf(i.status, i.partialResult),
    mechanism: i.mechanism,
    commitsEffect: i.commitsEffect,
    supportsRollback: !!registry.get(i.toolName)?.rollback,
    started_at: i.startedAt?.toISOString() ?? null,
    partial_result: i.partialResult,
  }));
}

/**
 * The plan for these children: the rules', or a model's when one is configured and its plan passes validation
 * (invariant 10). Never throws for the planner's sake: a failing or invalid model plan falls back to the rules.
 */
export async function planFor(calls: ActiveToolCall[], planner?: (calls: ActiveToolCall[]) => Promise<CancellationPlan>): Promise<CancellationPlan> {
  if (!planner || !calls.length) return rulePlan(calls);
  try {
    const proposed = await planner(calls);
    // Never trust a plan that was not validated here, whatever produced it.
    const { errors } = validatePlan({ actions: proposed.steps }, calls);
    return errors.length ? { ...rulePlan(calls), fallbackReason: `planner returned an invalid plan: ${errors.join("; ")}` } : proposed;
  } catch (error) {
    return { ...rulePlan(calls), fallbackReason: `planner failed: ${(error as Error).message}` };
  }
}
