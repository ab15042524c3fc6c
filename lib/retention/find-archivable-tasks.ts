import type { Database, Tx } from "../db/client";
import { DeliveryStatus } from "../escalation/states";
import { ACTIVE_ITEM_STATUSES, OPEN_REVIEW_STATUSES, ResourceIntentState, ResourceState, SideEffectOutcome, TaskStage } from "../ledger/states";

/** A task that may leave the hot tables, and the instant it settled. */
export interface ArchivableTask {
  id: string;
  settledAt: Date;
}

/**
 * The rule for "settled and nothing left to decide", as one Prisma filter (the search and, inside the deleting
 * transaction, the re-check use the same one). A task is archivable when its settlement is older than `cutoff` —
 * a Stop's settlement (`settledAt`, stage cancelled) or the agent's end (`endedAt`, stage completed / failed) — and
 * none of these holds (each keeps it, however old):
 *  - a review item still open or escalated (a person has not decided);
 *  - a resource not verified released (held, release requested, orphaned) or an intent not resolved (open, or
 *    unresolved: nobody could say whether the call holds something);
 *  - a child not final: queued, running, submitted, cancelling, unrecoverable or uncertain;
 *  - an effect whose outcome is unknown;
 *  - a scoped Stop of a child whose pass has not settled;
 *  - an engine run holding the task's lease;
 * and, checked by `keptHot` (not expressible as one filter): no escalation of it is still being delivered, no scoped
 * Stop of one of its children is unsettled, and the escalation reader's cursor does not stand on one of its events.
 */
export function archivableWhere(cutoff: Date): TaskWhere {
  return {
    OR: [
      { stage: TaskStage.cancelled, settledAt: { lt: cutoff } },
      { stage: { in: [TaskStage.completed, TaskStage.failed] as string[] }, endedAt: { lt: cutoff } },
    ],
    engineOwner: null,
    reviewItems: { none: { status: { in: OPEN_REVIEW_STATUSES } } },
    resources: { none: { state: { not: ResourceState.released } } },
    resourceIntents: { none: { state: { in: [ResourceIntentState.open, ResourceIntentState.unresolved] } } },
    workItems: { none: { status: { in: ACTIVE_ITEM_STATUSES } } },
    sideEffects: { none: { outcome: SideEffectOutcome.unknown } },
  };
}
type TaskWhere = NonNullable<Parameters<Database["prisma"]["task"]["findMany"]>[0]>["where"];

/** When a task settled, for the archive: the Stop's settlement, else the agent's end. */
export const settlementOf = (t: { settledAt: Date | null; endedAt: Date | null }): Date => (t.settledAt ?? t.endedAt)!;

/**
 * Of `taskIds`, those kept hot by what `archivableWhere` cannot say: an escalation still pending delivery (deliveries
 * name their task without a relation), a scoped Stop whose pass has not settled (its settlement is recorded on the
 * stopped child itself, `stopRootId = id`), or the event the escalation reader's cursor stands on (the reader resumes by
 * looking that event up — lib/escalation/enqueue.ts — so it stays until the cursor moves past it).
 */
export async function keptHot(
  prisma: Pick<Tx, "escalationDelivery" | "workItem" | "escalationCursor" | "ledgerEvent">,
  taskIds: string[],
): Promise<Set<string>> {
  if (!taskIds.length) return new Set();
  const [deliveries, stops, cursors] = await Promise.all([
    prisma.escalationDelivery.findMany({ where: { taskId: { in: taskIds }, status: DeliveryStatus.pending }, select: { taskId: true } }),
    prisma.workItem.findMany({
      where: { taskId: { in: taskIds }, stopRequestedAt: { not: null }, stopSettledAt: null },
      select: { id: true, taskId: true, stopRootId: true },
    }),
    prisma.escalationCursor.findMany({ select: { seq: true } }),
  ]);
  const atCursor = cursors.length
    ? await prisma.ledgerEvent.findMany({ where: { seq: { in: cursors.map((c) => c.seq) }, taskId: { in: taskIds } }, select: { taskId: true } })
    : [];
  return new Set([...deliveries.map((d) => d.taskId), ...stops.filter((s) => s.stopRootId === s.id).map((s) => s.taskId), ...atCursor.map((e) => e.taskId!)]);
}

/**
 * Up to `limit` archivable tasks settled before `cutoff` (of `only`, when given), oldest first. Read-only; the deleting transaction
 * checks each again (commit-archive.ts), so a task that changed in between simply stays.
 */
export async function findArchivableTasks(database: Database, cutoff: Date, limit: number, only?: string[]): Promise<ArchivableTask[]> {
  const found: ArchivableTask[] = [];
  let skip = 0;
  // A few rounds at most: tasks kept by keptHot are rare, and the next pass looks again.
  for (let round = 0; round < 5 && found.length < limit; round++) {
    const rows = await database.prisma.task.findMany({
      where: { ...archivableWhere(cutoff), ...(only ? { id: { in: only } } : {}) },
      select: { id: true, settledAt: true, endedAt: true },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      skip,
      take: limit,
    });
    if (!rows.length) break;
    skip += rows.length;
    const kept = await keptHot(
      database.prisma,
      rows.map((r) => r.id),
    );
    for (const r of rows) if (!kept.has(r.id) && found.length < limit) found.push({ id: r.id, settledAt: settlementOf(r) });
    if (rows.length < limit) break;
  }
  return found;
}
