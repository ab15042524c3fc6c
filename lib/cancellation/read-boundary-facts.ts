import { onEngine, type Database } from "../db/client";
import { Coalescer, coalescerPerOwner } from "../db/coalesce";
import type { PgDirect } from "../db/pg";
import type { Task, WorkItem } from "../db/generated/sqlite/client.ts";
import { ACTIVE_ITEM_STATUSES, ResourceIntentState, ResourceState, SideEffectOutcome } from "../ledger/states";
import { atBoundary, childrenToPlan, isChildToPlanSql } from "./plan-children";

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

type ChildrenAndCounts = { found: WorkItem[]; counts: { heldResources: number; effectsToAccountFor: number } };

/**
 * The children and counts of several Stops' tasks (each asked for with its boundary), in one statement and one
 * snapshot — per task: its children alive at its boundary (isChildToPlanSql) and its counts, so a
 * child that ended meanwhile is seen with its effect. Each task's rows are read by its id (laterals kept apart by
 * OFFSET 0: folded into joins, the planner may read every child of every Stop in flight).
 */
const BOUNDARY_FACTS = `
SELECT a."key" AS "_key", n."_resources", n."_effects", c.*
FROM unnest($1::int[], $2::text[], $3::text[]) a("key", "taskId", at)
CROSS JOIN LATERAL (
  SELECT ((SELECT count(*) FROM "Resource" WHERE "taskId" = a."taskId" AND "state" = ANY($5::text[]))
          + (SELECT count(*) FROM "ResourceIntent" WHERE "taskId" = a."taskId" AND "state" = '${ResourceIntentState.open}'))::int AS "_resources",
         (SELECT count(*) FROM "SideEffect" WHERE "taskId" = a."taskId" AND "outcome" = ANY($6::text[]))::int AS "_effects"
  OFFSET 0) n
LEFT JOIN LATERAL (
  SELECT * FROM "WorkItem" w WHERE ${isChildToPlanSql("w", `a."taskId"`, "$4", "a.at")}
  OFFSET 0) c ON true
ORDER BY a."key", c."createdAt", c."id"`;

/** A task and its boundary (ISO), whose facts a pass asks for. */
type FactsAsked = { taskId: string; at: string };

/** One coalescer per pool: the facts reads of Stops whose reads were asked for while one was in flight go out together. */
const factsOf = coalescerPerOwner(
  (pg: PgDirect) =>
    new Coalescer(async (asked: FactsAsked[]) => {
      const rows = await pg.query<WorkItem & { _key: number; _resources: number; _effects: number }>(
        BOUNDARY_FACTS,
        [asked.map((_, i) => i), asked.map((a) => a.taskId), asked.map((a) => a.at), ACTIVE_ITEM_STATUSES, HELD, EFFECTS_TO_ACCOUNT_FOR],
        "stopline_boundary_facts_batch",
      );
      const out = new Map<FactsAsked, ChildrenAndCounts>();
      for (const { _key, _resources, _effects, ...item } of rows) {
        let facts = out.get(asked[_key]);
        if (!facts) out.set(asked[_key], (facts = { found: [], counts: { heldResources: _resources, effectsToAccountFor: _effects } }));
        if (item.id !== null) facts.found.push(item as WorkItem);
      }
      return out;
    }),
);

/** One coalescer per pool: the tasks of passes that read them while one read was in flight are read together. */
const tasksOf = coalescerPerOwner(
  (pg: PgDirect) =>
    new Coalescer(async (taskIds: string[]) => {
      const rows = await pg.query<Task>(`SELECT * FROM "Task" WHERE "id" = ANY($1::text[])`, [taskIds], "stopline_tasks_by_id");
      return new Map(rows.map((t) => [t.id, t]));
    }),
);

/**
 * What the engine's pass reads before it plans (null: no such task, or no boundary on it); `known`: the task as the
 * engine's claim returned it. On PostgreSQL the children and the counts are one statement on `pg` (through Prisma's
 * executor these reads cost more CPU than the rest of a quiet Stop), shared with other Stops' reads (BOUNDARY_FACTS). On SQLite the counts are read after the
 * children, so that a child ending in between is seen with its effect; the settling statement re-checks that
 * nothing is busy.
 */
export async function readBoundaryFacts(database: Database, taskId: string, known?: Task): Promise<BoundaryFacts | null> {
  const task =
    known ??
    (await onEngine(database, {
      postgres: async (pg) => (await tasksOf(pg).load(taskId)) ?? null,
      sqlite: async () => await database.prisma.task.findUnique({ where: { id: taskId } }),
    }));
  const boundaryAt = task?.cancelRequestedAt;
  if (!task || !boundaryAt) return null;
  return onEngine(database, {
    postgres: async (pg) => {
      const read = (await factsOf(pg).load({ taskId, at: boundaryAt.toISOString() }))!;
      return { task: { ...task, cancelRequestedAt: boundaryAt }, found: read.found, items: read.found.map(atBoundary), ...read.counts };
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
