import type { Database } from "../db/client";
import type { Task, WorkItem } from "../db/generated/sqlite/client.ts";
import { ResourceState, SideEffectOutcome, WorkItemStatus } from "../ledger/states";

/** The statuses of a child still in flight or waiting for an answer (the engine acts on these). */
export const ACTIVE_ITEM_STATUSES = [WorkItemStatus.queued, WorkItemStatus.running, WorkItemStatus.submitted, WorkItemStatus.cancelling, WorkItemStatus.unrecoverable, WorkItemStatus.uncertain];
const HELD = [ResourceState.held, ResourceState.releaseRequested];
const EFFECTS_TO_ACCOUNT_FOR = [SideEffectOutcome.committed, SideEffectOutcome.unknown];

export interface BoundaryFacts {
  task: Task;
  /** Children still active, and those that ended at or after the boundary, oldest first. */
  children: WorkItem[];
  /** Resources still held or awaiting verification, and side effects that took (or may have taken) effect. */
  heldResources: number;
  effectsToAccountFor: number;
}

/**
 * What the engine's pass reads before it plans (null: no such task). On PostgreSQL two statements on `pg`
 * (through Prisma's executor the four reads cost more CPU than the rest of a quiet Stop). The counts are read
 * after the children, so that a child ending in between is seen with its effect; the settling statement
 * re-checks that nothing is busy.
 */
export async function readBoundaryFacts(database: Database, taskId: string): Promise<BoundaryFacts | null> {
  if (database.pg) {
    // Children first, then the counts: an item that ends between the two reads is counted (its effect included).
    const children = await database.pg.query<WorkItem>(
      `SELECT w.* FROM "WorkItem" w
       WHERE w."taskId" = $1 AND (w."status" = ANY($2::text[])
         OR w."finishedAt" >= (SELECT t."cancelRequestedAt" FROM "Task" t WHERE t."id" = $1))
       ORDER BY w."createdAt", w."id"`,
      [taskId, ACTIVE_ITEM_STATUSES], "stopline_boundary_children",
    );
    const [row] = await database.pg.query<Task & { _resources: number; _effects: number }>(
      `SELECT t.*,
         (SELECT count(*) FROM "Resource" r WHERE r."taskId" = t."id" AND r."state" = ANY($2::text[]))::int AS "_resources",
         (SELECT count(*) FROM "SideEffect" s WHERE s."taskId" = t."id" AND s."outcome" = ANY($3::text[]))::int AS "_effects"
       FROM "Task" t WHERE t."id" = $1`,
      [taskId, HELD, EFFECTS_TO_ACCOUNT_FOR], "stopline_boundary_task",
    );
    if (!row) return null;
    const { _resources, _effects, ...task } = row;
    return { task: task as Task, children, heldResources: _resources, effectsToAccountFor: _effects };
  }
  const task = await database.prisma.task.findUnique({ where: { id: taskId } });
  if (!task) return null;
  const children = await database.prisma.workItem.findMany({
    where: { taskId, OR: [{ status: { in: ACTIVE_ITEM_STATUSES } }, ...(task.cancelRequestedAt ? [{ finishedAt: { gte: task.cancelRequestedAt } }] : [])] },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  const [heldResources, effectsToAccountFor] = await Promise.all([
    database.prisma.resource.count({ where: { taskId, state: { in: HELD } } }),
    database.prisma.sideEffect.count({ where: { taskId, outcome: { in: EFFECTS_TO_ACCOUNT_FOR } } }),
  ]);
  return { task, children, heldResources, effectsToAccountFor };
}
