import type { Database } from "../db/client";
import { outcomesOfTask, OutcomeKind, summaryStatus, taskStanding, type SummaryStatus, type TaskStanding } from "../outcomes";
import type { WorkItemLike } from "../outcomes/facts";
import { isOpenReview, ResourceState, SideEffectOutcome } from "./states";

/** What the console's task list shows per row besides the task itself: enough to triage without opening it. */
export interface TaskRowFacts {
  /** How many of its children ended (or stand) how, in the one outcome vocabulary. */
  outcomes: { kind: OutcomeKind; count: number }[];
  /** The Stop's summary status (IN_PROGRESS until settlement), or null when nobody pressed Stop. */
  stopStatus: SummaryStatus | null;
  /** The task's pill (lib/outcomes taskStanding). */
  standing: TaskStanding;
  /** The owner's e-mail address when the owner is a person (null for a token-owned task). */
  ownerEmail: string | null;
  /** How many children it has. */
  workItemCount: number;
  /** The tools its children called, each once. */
  tools: string[];
  /** External effects that took place (committed), and those whose outcome is still unknown. */
  effects: { committed: number; unknown: number };
  /** Review items still waiting for a person (open or escalated), and the earliest of their deadlines. */
  awaitingDecision: number;
  nextDeadline: Date | null;
  /** Children whose outcome is not known yet. */
  uncertainSteps: number;
}

/**
 * The columns of a child the row needs: what outcomesOfTask reads (every key of WorkItemLike, kept in step by the
 * type) and the tool's name — never its input, result, progress or stop plan, which a page of thousands of children
 * would otherwise carry for nothing.
 */
const CHILD_COLUMNS = {
  id: true,
  taskId: true,
  toolName: true,
  status: true,
  kind: true,
  mechanism: true,
  commitsEffect: true,
  startedAt: true,
  finishedAt: true,
  reconcileDeadline: true,
  leaseExpiresAt: true,
  partialResult: true,
  cancelDispatchedAt: true,
  cancelAnsweredAt: true,
  cancelWithdrawnAt: true,
  stopRequestedAt: true,
  stopSettledAt: true,
  serviceRunningAt: true,
} as const satisfies Record<keyof WorkItemLike | "taskId" | "toolName", true>;

/**
 * The row facts for a page of tasks: a fixed number of queries for the whole page, none per task. The outcome
 * and the summary status come from lib/outcomes, exactly as the task's own summary computes them.
 */
export async function taskRowFacts(database: Database, tasks: { id: string; ownerId: string }[], now = Date.now()): Promise<Map<string, TaskRowFacts>> {
  if (!tasks.length) return new Map();
  const taskIds = tasks.map((t) => t.id);
  const prisma = database.prisma;
  const [rows, workItems, sideEffects, reviewItems, resources, owners] = await Promise.all([
    prisma.task.findMany({ where: { id: { in: taskIds } }, select: { id: true, stage: true, cancelRequestedAt: true, settledAt: true, endReason: true } }),
    prisma.workItem.findMany({ where: { taskId: { in: taskIds } }, select: CHILD_COLUMNS }),
    prisma.sideEffect.findMany({ where: { taskId: { in: taskIds } }, select: { id: true, taskId: true, workItemId: true, outcome: true, reversible: true } }),
    prisma.reviewItem.findMany({
      where: { taskId: { in: taskIds } },
      select: { taskId: true, workItemId: true, sideEffectId: true, kind: true, status: true, deadline: true },
    }),
    prisma.resource.findMany({
      where: { taskId: { in: taskIds }, state: { not: ResourceState.released } },
      select: { taskId: true, workItemId: true, state: true },
    }),
    prisma.user.findMany({ where: { id: { in: [...new Set(tasks.map((t) => t.ownerId))] } }, select: { id: true, email: true } }),
  ]);
  const emailOf = new Map(owners.map((o) => [o.id, o.email]));
  const ownerOf = new Map(tasks.map((t) => [t.id, t.ownerId]));
  const facts = new Map<string, TaskRowFacts>();
  // Grouped once (Map.groupBy needs Node 21): a page of thousands of children is not filtered once per task.
  const byTask = <T extends { taskId: string }>(list: T[]) => {
    const groups = new Map<string, T[]>();
    for (const row of list) groups.get(row.taskId)?.push(row) ?? groups.set(row.taskId, [row]);
    return groups;
  };
  const [itemsOf, effectsOf, reviewsOf, resourcesOf] = [byTask(workItems), byTask(sideEffects), byTask(reviewItems), byTask(resources)];
  for (const task of rows) {
    const of = <T>(groups: Map<string, T[]>) => groups.get(task.id) ?? [];
    const mine = { items: of(itemsOf), effects: of(effectsOf), reviews: of(reviewsOf), resources: of(resourcesOf) };
    const children = [
      ...outcomesOfTask({ ...task, workItems: mine.items, sideEffects: mine.effects, reviewItems: mine.reviews, resources: mine.resources }, now).values(),
    ];
    const byKind = new Map<OutcomeKind, number>();
    for (const o of children) byKind.set(o.kind, (byKind.get(o.kind) ?? 0) + 1);
    const stopStatus = task.cancelRequestedAt
      ? summaryStatus({
          settled: task.settledAt !== null,
          children,
          orphanedResources: mine.resources.filter((r) => r.state === ResourceState.orphaned).length,
        })
      : null;
    const open = mine.reviews.filter((r) => isOpenReview(r.status));
    const nextDeadline = open.length ? new Date(Math.min(...open.map((r) => r.deadline.getTime()))) : null;
    facts.set(task.id, {
      outcomes: [...byKind].map(([kind, count]) => ({ kind, count })),
      stopStatus,
      standing: taskStanding({ stage: task.stage, stopStatus, endReason: task.endReason }),
      ownerEmail: emailOf.get(ownerOf.get(task.id) ?? "") ?? null,
      workItemCount: mine.items.length,
      tools: [...new Set(mine.items.map((i) => i.toolName))].sort(),
      effects: {
        committed: mine.effects.filter((e) => e.outcome === SideEffectOutcome.committed).length,
        unknown: mine.effects.filter((e) => e.outcome === SideEffectOutcome.unknown).length,
      },
      awaitingDecision: open.length,
      nextDeadline,
      uncertainSteps: byKind.get(OutcomeKind.outcomeUnknown) ?? 0,
    });
  }
  return facts;
}
