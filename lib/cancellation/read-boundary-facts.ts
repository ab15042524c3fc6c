import { onEngine, type Database } from "../db/client";
import type { Task, WorkItem } from "../db/generated/sqlite/client.ts";
import { ACTIVE_ITEM_STATUSES, ResourceIntentState, ResourceState, SideEffectOutcome } from "../ledger/states";
import { atBoundary, CHILDREN_TO_PLAN_SQL, childrenToPlan } from "./plan-children";

const HELD = [ResourceState.held, ResourceState.releaseRequested];
const EFFECTS_TO_ACCOUNT_FOR = [SideEffectOutcome.committed, SideEffectOutcome.unknown];

export interface BoundaryFacts {
  task: Task & { cancelRequestedAt: Date };
  /** The children alive at the boundary (plan-children.ts), as found and as they were at the boundary. */
  found: WorkItem[];
  items: WorkItem[];
  /** Resources still held or awaiting verification (and those written ahead, not yet named or asked about), and side effects that took (or may have taken) effect. */
  heldResources: number;
  effectsToAccountFor: number;
}

/**
 * What the engine's pass reads before it plans (null: no such task, or no boundary on it); `known`: the task as the
 * engine's claim returned it. On PostgreSQL the children and the counts are one statement on `pg` (through Prisma's
 * executor these reads cost more CPU than the rest of a quiet Stop). On SQLite the counts are read after the
 * children, so that a child ending in between is seen with its effect; the settling statement re-checks that
 * nothing is busy.
 */
export async function readBoundaryFacts(database: Database, taskId: string, known?: Task): Promise<BoundaryFacts | null> {
  const task =
    known ??
    (await onEngine(database, {
      postgres: async (pg) => (await pg.query<Task>(`SELECT * FROM "Task" WHERE "id" = $1`, [taskId], "stopline_task_by_id"))[0] ?? null,
      sqlite: async () => await database.prisma.task.findUnique({ where: { id: taskId } }),
    }));
  const boundaryAt = task?.cancelRequestedAt;
  if (!task || !boundaryAt) return null;
  return onEngine(database, {
    postgres: async (pg) => {
      // The children and the counts in one statement: one snapshot, so a child that ended meanwhile is seen with its effect.
      const rows = await pg.query<WorkItem & { _resources: number; _effects: number }>(
        `WITH children AS (${CHILDREN_TO_PLAN_SQL})
       SELECT c.*, n."_resources", n."_effects"
       FROM (SELECT ((SELECT count(*) FROM "Resource" WHERE "taskId" = $1 AND "state" = ANY($4::text[]))
                     + (SELECT count(*) FROM "ResourceIntent" WHERE "taskId" = $1 AND "state" = '${ResourceIntentState.open}'))::int AS "_resources",
                    (SELECT count(*) FROM "SideEffect" WHERE "taskId" = $1 AND "outcome" = ANY($5::text[]))::int AS "_effects") AS n
       LEFT JOIN children c ON true
       ORDER BY c."createdAt", c."id"`,
        [taskId, ACTIVE_ITEM_STATUSES, boundaryAt.toISOString(), HELD, EFFECTS_TO_ACCOUNT_FOR],
        "stopline_boundary_facts",
      );
      const found = rows.filter((r) => r.id !== null).map(({ _resources, _effects, ...item }) => item as WorkItem);
      return {
        task: { ...task, cancelRequestedAt: boundaryAt },
        found,
        items: found.map(atBoundary),
        heldResources: rows[0]._resources,
        effectsToAccountFor: rows[0]._effects,
      };
    },
    sqlite: async () => {
      const { found, items } = await childrenToPlan(database, taskId, boundaryAt);
      const [held, intended, effectsToAccountFor] = await Promise.all([
        database.prisma.resource.count({ where: { taskId, state: { in: HELD } } }),
        database.prisma.resourceIntent.count({ where: { taskId, state: ResourceIntentState.open } }),
        database.prisma.sideEffect.count({ where: { taskId, outcome: { in: EFFECTS_TO_ACCOUNT_FOR } } }),
      ]);
      return { task: { ...task, cancelRequestedAt: boundaryAt }, found, items, heldResources: held + intended, effectsToAccountFor };
    },
  });
}
