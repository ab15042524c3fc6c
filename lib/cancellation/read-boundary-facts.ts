import type { Database } from "../db/client";
import type { Task, WorkItem } from "../db/generated/sqlite/client.ts";
import { ResourceState, SideEffectOutcome } from "../ledger/states";
import { childrenToPlan } from "./plan-children";

const HELD = [ResourceState.held, ResourceState.releaseRequested];
const EFFECTS_TO_ACCOUNT_FOR = [SideEffectOutcome.committed, SideEffectOutcome.unknown];

export interface BoundaryFacts {
  task: Task & { cancelRequestedAt: Date };
  /** The children alive at the boundary (plan-children.ts), as found and as they were at the boundary. */
  found: WorkItem[];
  items: WorkItem[];
  /** Resources still held or awaiting verification, and side effects that took (or may have taken) effect. */
  heldResources: number;
  effectsToAccountFor: number;
}

/**
 * What the engine's pass reads before it plans (null: no such task, or no boundary on it). On PostgreSQL each
 * read is one statement on `pg` (through Prisma's executor these reads cost more CPU than the rest of a quiet
 * Stop). The counts are read after the children, so that a child ending in between is seen with its effect;
 * the settling statement re-checks that nothing is busy.
 */
export async function readBoundaryFacts(database: Database, taskId: string): Promise<BoundaryFacts | null> {
  const task = database.pg
    ? ((await database.pg.query<Task>(`SELECT * FROM "Task" WHERE "id" = $1`, [taskId], "stopline_task_by_id"))[0] ?? null)
    : await database.prisma.task.findUnique({ where: { id: taskId } });
  const boundaryAt = task?.cancelRequestedAt;
  if (!task || !boundaryAt) return null;
  const { found, items } = await childrenToPlan(database, taskId, boundaryAt);
  const [heldResources, effectsToAccountFor] = database.pg
    ? await database.pg
        .query<{ resources: number; effects: number }>(
          `SELECT (SELECT count(*) FROM "Resource" WHERE "taskId" = $1 AND "state" = ANY($2::text[]))::int AS "resources",
                  (SELECT count(*) FROM "SideEffect" WHERE "taskId" = $1 AND "outcome" = ANY($3::text[]))::int AS "effects"`,
          [taskId, HELD, EFFECTS_TO_ACCOUNT_FOR], "stopline_boundary_counts",
        )
        .then(([r]) => [r.resources, r.effects])
    : await Promise.all([
        database.prisma.resource.count({ where: { taskId, state: { in: HELD } } }),
        database.prisma.sideEffect.count({ where: { taskId, outcome: { in: EFFECTS_TO_ACCOUNT_FOR } } }),
      ]);
  return { task: { ...task, cancelRequestedAt: boundaryAt }, found, items, heldResources, effectsToAccountFor };
}
