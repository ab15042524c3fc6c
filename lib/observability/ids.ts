import { createHash } from "node:crypto";

/**
 * Trace and span ids derived from ledger ids, so that every process — the one that records a Stop's boundary, the
 * engine that stops its children (possibly another instance, after a takeover), the one that records its settlement,
 * a worker across the network — names the same trace without storing anything:
 *   - a Stop is one trace: its id from the task (or, for a Stop of one step, that step); its root span's id too;
 *   - a task's tool calls are spans of the task's trace; a call's span id from the work item and its attempt, so a
 *     worker handed the call's `traceparent` at its claim makes its own spans children of that call.
 * Ids are the first bytes of a SHA-256 of a namespaced key: unique per key, and never all zeros (W3C forbids it).
 */
const hex = (key: string, chars: number) => {
  const h = createHash("sha256").update(key).digest("hex").slice(0, chars);
  return /^0+$/.test(h) ? `${h.slice(0, -1)}1` : h;
};

export interface TraceIds {
  traceId: string;
  spanId: string;
}

/** What a Stop is of: a task, or one work item stopped alone (its descendants with it). */
export type StopKey = { taskId: string; workItemId?: undefined } | { taskId?: string; workItemId: string };

const stopKey = (stop: StopKey) => (stop.workItemId ? `work_item:${stop.workItemId}` : `task:${stop.taskId}`);

/** The trace of a Stop and its root span. */
export const stopTrace = (stop: StopKey): TraceIds => ({
  traceId: hex(`stopline/stop/${stopKey(stop)}`, 32),
  spanId: hex(`stopline/stop/${stopKey(stop)}/root`, 16),
});

/** The trace of a task's work and its root span. */
export const taskTrace = (taskId: string): TraceIds => ({ traceId: hex(`stopline/task/${taskId}`, 32), spanId: hex(`stopline/task/${taskId}/root`, 16) });

/** The span of one run (attempt) of a work item: in its task's trace. */
export const toolCallSpan = (item: { taskId: string; id: string; attempt: number }): TraceIds => ({
  traceId: taskTrace(item.taskId).traceId,
  spanId: hex(`stopline/work_item/${item.id}/attempt/${item.attempt}`, 16),
});

/** W3C Trace Context header value (version 00), sampled unless said otherwise. */
export const traceparentOf = (ids: TraceIds, sampled = true) => `00-${ids.traceId}-${ids.spanId}-${sampled ? "01" : "00"}`;

/** Parses a W3C traceparent; null if it is not one. */
export function parseTraceparent(value: string | null | undefined): (TraceIds & { sampled: boolean }) | null {
  const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(value?.trim() ?? "");
  if (!m || /^0+$/.test(m[1]) || /^0+$/.test(m[2])) return null;
  return { traceId: m[1], spanId: m[2], sampled: (parseInt(m[3], 16) & 1) === 1 };
}
