import { getCancellationSummary, getChildCancellationSummary } from "../cancellation/get-cancellation-summary";
import type { CancellationSummary } from "../cancellation/summarize";
import type { Database } from "../db/client";
import { onCommitted, type CommittedEvent } from "../events/bus";
import { LedgerEvent } from "../ledger/events";
import { TERMINAL_ITEM_STATUSES } from "../ledger/states";
import { stopTrace, taskTrace, toolCallSpan, type StopKey } from "./ids";
import { metrics, metricsWanted } from "./metrics";
import { emitSpan, SpanKinds, tracingEnabled } from "./tracing";

/**
 * Watches what this process commits (the in-process bus, `local` events only — another process counts its own)
 * and turns it into metrics and the spans that are emitted from the ledger's facts:
 * - a boundary → stops requested; a settlement → stops settled by status, time to settle, children by outcome
 *   (the summary's own outcomes, lib/outcomes), and the Stop's `stopline.stop` root and `stopline.stop.settlement`
 *   spans (derived ids, ids.ts);
 * - a work item that ended after it started → its `stopline.tool_call` span (traces on only);
 * - a task that ended → its `stopline.task` root span (traces on only).
 * Reads happen after the commit, off the writer's path, and a failure only costs a sample.
 */
const TERMINAL = new Set<string>(TERMINAL_ITEM_STATUSES);
const TASK_ENDS = new Set<string>([LedgerEvent.taskCompleted, LedgerEvent.taskFailed, LedgerEvent.taskCancelled]);

const globalForObserver = globalThis as unknown as { stoplineLedgerObserver?: { database: Database; off: () => void } };

export function observeLedger(database: Database): () => void {
  const running = globalForObserver.stoplineLedgerObserver;
  if (running?.database === database) return running.off;
  running?.off();
  const off = onCommitted((events) => {
    for (const e of events)
      if (e.origin === "local")
        void react(database, e).catch((error) => console.error(`metrics/traces: ${e.type} of ${e.taskId ?? e.workItemId}: ${(error as Error).message}`));
  });
  const stop = () => {
    off();
    if (globalForObserver.stoplineLedgerObserver?.off === stop) globalForObserver.stoplineLedgerObserver = undefined;
  };
  globalForObserver.stoplineLedgerObserver = { database, off: stop };
  return stop;
}

async function react(database: Database, e: CommittedEvent): Promise<void> {
  const m = metrics();
  if (e.type === LedgerEvent.taskCancelRequested) m.stopsRequested.inc({ level: "task" });
  else if (e.type === LedgerEvent.workItemStopRequested) m.stopsRequested.inc({ level: "work_item" });
  const tracing = tracingEnabled();
  if (!tracing && !metricsWanted()) return;
  if (e.type === LedgerEvent.cancellationSettled && e.taskId)
    await oneAtATime(async () => settled(database, { taskId: e.taskId! }, await getCancellationSummary(database, e.taskId!)));
  else if (e.type === LedgerEvent.workItemStopSettled && e.workItemId)
    await oneAtATime(async () =>
      settled(database, { workItemId: e.workItemId!, taskId: e.taskId ?? undefined }, await getChildCancellationSummary(database, e.workItemId!)),
    );
  if (!tracing) return;
  if (e.workItemId && e.toState && TERMINAL.has(e.toState) && e.type !== LedgerEvent.workItemRemovedFromDispatch) await toolCallEnded(database, e.workItemId);
  if (e.taskId && TASK_ENDS.has(e.type)) await taskEnded(database, e.taskId);
}

/**
 * Settlements are read one at a time after their commit: a burst of Stops (a conversation's, an incident's) queues
 * its summary reads instead of taking the connection pool from the writers.
 */
let queue: Promise<unknown> = Promise.resolve();
function oneAtATime(work: () => Promise<void>): Promise<void> {
  const next = queue.then(work, work);
  queue = next.catch(() => {});
  return next;
}

async function settled(database: Database, stop: StopKey, summary: CancellationSummary): Promise<void> {
  const m = metrics();
  const level = stop.workItemId ? "work_item" : "task";
  const start = new Date(summary.cancel_requested_at);
  const end = summary.settled_at ? new Date(summary.settled_at) : new Date();
  m.stopsSettled.inc({ level, status: summary.status });
  m.settleSeconds.observe({ level }, Math.max(0, end.getTime() - start.getTime()) / 1000);
  for (const call of summary.tool_calls) m.stopChildren.inc({ outcome: call.outcome.kind });
  if (!tracingEnabled()) return;
  const root = stopTrace(stop);
  // The summary names children by their tool call id (the correlation id); spans name work items too.
  const children = await database.prisma.workItem.findMany({
    where: stop.workItemId ? { stopRootId: stop.workItemId } : { taskId: summary.task_id },
    select: { id: true, taskId: true, correlationId: true, attempt: true, toolName: true, startedAt: true },
  });
  const byCall = new Map(children.map((c) => [c.correlationId, c]));
  const attributes = {
    "stopline.task_id": summary.task_id,
    "stopline.stop.scope": summary.scope.kind,
    "stopline.stop.status": summary.status,
    "stopline.stop.children": summary.tool_calls.length,
    "stopline.stop.open_review_items": summary.open_review_items,
    "stopline.stop.user_message": summary.user_message,
    ...(stop.workItemId ? { "stopline.work_item_id": stop.workItemId } : {}),
  };
  emitSpan("stopline.stop.settlement", { traceId: root.traceId, spanId: settlementSpanId(root.spanId) }, root, { start: end, end }, attributes, {
    events: summary.tool_calls.map((c) => ({
      name: "stopline.child.outcome",
      at: end,
      attributes: {
        "stopline.work_item_id": byCall.get(c.tool_call_id)?.id ?? "",
        "stopline.tool_call_id": c.tool_call_id,
        "stopline.tool": c.tool_name,
        "stopline.outcome": c.outcome.kind,
        "stopline.outcome.label": c.outcome.label,
      },
    })),
  });
  const error = summary.status === "CANCELLATION_FAILED" ? summary.user_message : undefined;
  // Linked: the task's trace, and the span of every child that ran — a child stopped by its AbortSignal at the
  // boundary's commit (before the engine's pass looked) shows its stop there, in the call's own span.
  const task = taskTrace(summary.task_id);
  const ran = children.filter((c) => c.attempt > 0 && c.startedAt);
  const links = [
    { context: { traceId: task.traceId, spanId: task.spanId, traceFlags: 1 }, attributes: { "stopline.link": "task" } },
    ...ran.map((c) => ({
      context: { ...toolCallSpan(c), traceFlags: 1 },
      attributes: { "stopline.link": "tool_call", "stopline.work_item_id": c.id, "stopline.tool": c.toolName },
    })),
  ];
  emitSpan("stopline.stop", root, null, { start, end }, attributes, { error, kind: SpanKinds.server, links });
}

/** A sibling id for the settlement span (the root's own id is taken). */
const settlementSpanId = (rootSpanId: string) => rootSpanId.slice(0, 15) + ((parseInt(rootSpanId.slice(15), 16) + 1) % 16).toString(16);

async function toolCallEnded(database: Database, workItemId: string): Promise<void> {
  const item = await database.prisma.workItem.findUnique({
    where: { id: workItemId },
    select: {
      id: true,
      taskId: true,
      toolName: true,
      kind: true,
      mechanism: true,
      status: true,
      attempt: true,
      startedAt: true,
      finishedAt: true,
      error: true,
      operationId: true,
      stopRequestedAt: true,
      task: { select: { cancelRequestedAt: true } },
    },
  });
  if (!item?.startedAt || item.attempt < 1) return; // never ran: no tool call
  const ids = toolCallSpan(item);
  // A Stop that reached this call while it ran: when (its AbortSignal, or the engine's stop, follows from there).
  const stopAt = item.stopRequestedAt ?? item.task.cancelRequestedAt;
  const stopped =
    stopAt && stopAt >= item.startedAt && (!item.finishedAt || stopAt <= item.finishedAt)
      ? [
          {
            name: "stopline.stop_requested",
            at: stopAt,
            attributes: {
              "stopline.mechanism": item.mechanism,
              "stopline.stop.trace_id": stopTrace(item.stopRequestedAt ? { workItemId: item.id } : { taskId: item.taskId }).traceId,
            },
          },
        ]
      : [];
  emitSpan(
    "stopline.tool_call",
    ids,
    taskTrace(item.taskId),
    { start: item.startedAt, end: item.finishedAt ?? new Date() },
    {
      "stopline.task_id": item.taskId,
      "stopline.work_item_id": item.id,
      "stopline.tool": item.toolName,
      "stopline.work_item.kind": item.kind,
      "stopline.mechanism": item.mechanism,
      "stopline.work_item.status": item.status,
      "stopline.attempt": item.attempt,
      ...(item.operationId ? { "stopline.operation_id": item.operationId } : {}),
    },
    { error: item.status === "failed" ? (item.error ?? "failed") : undefined, kind: SpanKinds.consumer, events: stopped },
  );
}

async function taskEnded(database: Database, taskId: string): Promise<void> {
  // No title: it is the person's own words, which traces (another system, other readers) do not need.
  const task = await database.prisma.task.findUnique({
    where: { id: taskId },
    select: { id: true, stage: true, createdAt: true, endedAt: true, settledAt: true, updatedAt: true },
  });
  if (!task) return;
  emitSpan(
    "stopline.task",
    taskTrace(task.id),
    null,
    { start: task.createdAt, end: task.endedAt ?? task.settledAt ?? task.updatedAt },
    {
      "stopline.task_id": task.id,
      "stopline.task.stage": task.stage,
    },
  );
}
