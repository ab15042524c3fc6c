import type { Database } from "../db/client";
import { WorkItemKind, WorkItemStatus } from "../ledger/states";

export interface LatencyStats {
  count: number;
  p50_ms: number | null;
  p99_ms: number | null;
  max_ms: number | null;
}

const STOPPED = [WorkItemStatus.cancelled, WorkItemStatus.partial, WorkItemStatus.cancelledIncomplete];

const stats = (values: number[]): LatencyStats => {
  if (!values.length) return { count: 0, p50_ms: null, p99_ms: null, max_ms: null };
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  return { count: sorted.length, p50_ms: at(50), p99_ms: at(99), max_ms: sorted.at(-1)! };
};

/**
 * Generation cancellations (model requests stopped) are counted apart from action cancellations (tool work
 * stopped or reconciled): stopping the text says nothing about an order being reconciled. Latency is from
 * the task's boundary to the child's settlement, from the ledger.
 */
export async function cancellationMetrics(database: Database, since?: Date) {
  const items = await database.prisma.workItem.findMany({
    where: { task: { cancelRequestedAt: { not: null, ...(since ? { gte: since } : {}) } }, finishedAt: { not: null } },
    select: { kind: true, status: true, finishedAt: true, task: { select: { cancelRequestedAt: true } } },
  });
  const latency = (i: (typeof items)[number]) => Math.max(0, i.finishedAt!.getTime() - i.task.cancelRequestedAt!.getTime());
  const afterBoundary = items.filter((i) => i.finishedAt! >= i.task.cancelRequestedAt!);
  const generation = afterBoundary.filter((i) => i.kind === WorkItemKind.modelRequest && STOPPED.includes(i.status as never));
  const actions = afterBoundary.filter((i) => i.kind !== WorkItemKind.modelRequest);
  const tasks = await database.prisma.task.findMany({
    where: { cancelRequestedAt: { not: null, ...(since ? { gte: since } : {}) } },
    select: { stage: true },
  });
  return {
    generation_cancellations: stats(generation.map(latency)),
    action_cancellations: {
      stopped: stats(actions.filter((i) => STOPPED.includes(i.status as never)).map(latency)),
      reconciled_or_finished: stats(actions.filter((i) => !STOPPED.includes(i.status as never)).map(latency)),
    },
    tasks: { stopped: tasks.length, settled: tasks.filter((t) => t.stage === "cancelled").length },
  };
}
