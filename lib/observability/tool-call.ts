import { countToolCall } from "./counters";
import { inToolCall, toolCallTraceparent } from "./tracing";

/**
 * One tool call starts in this process (a runner's one line): it is counted (stopline_tool_calls_started_total) and
 * runs with its span's context — its logs carry its ids, what it sends carries its traceparent.
 */
export function toolCall<T>(item: { id: string; taskId: string; attempt: number; toolName: string }, fn: () => T): T {
  countToolCall(item.toolName);
  return inToolCall(item, fn);
}

/**
 * A claimed item handed to a worker over HTTP (the claim and start routes): counted as a tool call started, and given
 * the `traceparent` of its span, which the worker sends on (the SDK's runWorker does) so that its work joins the trace.
 */
export function handedToWorker<T extends { id: string; taskId: string; attempt: number; toolName: string }>(item: T): T & { traceparent: string };
export function handedToWorker<T extends { id: string; taskId: string; attempt: number; toolName: string }>(
  item: T | null,
): (T & { traceparent: string }) | null;
export function handedToWorker<T extends { id: string; taskId: string; attempt: number; toolName: string }>(item: T | null) {
  if (!item) return null;
  countToolCall(item.toolName);
  return { ...item, traceparent: toolCallTraceparent(item) };
}
