import type { Database } from "../db/client";
import { TaskStage, WorkItemKind, WorkItemStatus } from "../ledger/states";

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
 * How many Stops the figures cover: the latest ones. A team keeps Stopline for a year — the metrics page refreshes every
 * 15 s and must not read every Stop of that history each time (issue 22 §3); read newest first through Task_stops_idx.
 */
export const METRICS_LATEST_STOPS = 1_000;

/**
 * Generation cancellations (model requests stopped) are counted apart from action cancellations (tool work
 * stopped or reconciled): stopping the text says nothing about an order being reconciled. Latency is from
 * the task's boundary to the child's settlement, from the ledger. Over the latest `latest` Stops (since `since`,
 * when given); `window` says which.
 */
export async function cancellationMetrics(database: Database, options: { since?: Date; latest?: number } = {}) {
  const latest = options.latest ?? METRICS_LATEST_STOPS;
  // One more than the window: only a Stop older than those covered makes "older ones are left out" true.
  const read = await database.prisma.task.findMany({
    where: { cancelRequestedAt: { not: null, ...(options.since ? { gte: options.since } : {}) } },
    orderBy: [{ cancelRequestedAt: "desc" }, { id: "desc" }],
    take: latest + 1,
    select: { id: true, stage: true, cancelRequestedAt: true },
  });
  const stops = read.slice(0, latest);
  const boundaryOf = new Map(stops.map((t) => [t.id, t.cancelRequestedAt!.getTime()]));
  const items = stops.length
    ? await database.prisma.workItem.findMany({
        where: { taskId: { in: [...boundaryOf.keys()] }, finishedAt: { not: null } },
        select: { taskId: true, kind: true, status: true, finishedAt: true },
      })
    : [];
  const latency = (i: (typeof items)[number]) => Math.max(0, i.finishedAt!.getTime() - boundaryOf.get(i.taskId)!);
  const afterBoundary = items.filter((i) => i.finishedAt!.getTime() >= boundaryOf.get(i.taskId)!);
  const generation = afterBoundary.filter((i) => i.kind === WorkItemKind.modelRequest && STOPPED.includes(i.status as never));
  const actions = afterBoundary.filter((i) => i.kind !== WorkItemKind.modelRequest);
  return {
    generation_cancellations: stats(generation.map(latency)),
    action_cancellations: {
      stopped: stats(actions.filter((i) => STOPPED.includes(i.status as never)).map(latency)),
      reconciled_or_finished: stats(actions.filter((i) => !STOPPED.includes(i.status as never)).map(latency)),
    },
    tasks: { stopped: stops.length, settled: stops.filter((t) => t.stage === TaskStage.cancelled).length },
    window: {
      latest,
      since: options.since?.toISOString() ?? null,
      // The oldest Stop covered; `full`: older Stops exist and are left out.
      from: stops.at(-1)?.cancelRequestedAt?.toISOString() ?? null,
      full: read.length > latest,
    },
  };
}
