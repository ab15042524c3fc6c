import type { z } from "zod";
import type { MetricsSchema } from "../api/schema/requests";

type Metrics = z.output<typeof MetricsSchema>;

/**
 * Which Stops the metrics cover, in one sentence (the dashboard's caption): all of them, or the latest N back to a
 * time — never a figure that reads as all-time when older Stops were left out. `when` formats a time for the reader.
 */
export function metricsWindowSentence(metrics: Pick<Metrics, "window" | "tasks">, when: (iso: string) => string): string {
  const { window, tasks } = metrics;
  const since = window.since ? ` since ${when(window.since)}` : "";
  if (tasks.stopped === 0) return window.since ? `No task was stopped${since}.` : "No task has been stopped yet.";
  const settled = `${tasks.settled.toLocaleString("en")} settled as cancelled.`;
  if (window.full && window.from)
    return `The latest ${tasks.stopped.toLocaleString("en")} Stops, back to ${when(window.from)} (older ones are left out): ${settled}`;
  const all = tasks.stopped === 1 ? "1 task stopped" : `${tasks.stopped.toLocaleString("en")} tasks stopped`;
  return `${all}${since || " in all"}, ${settled}`;
}

/** The latency panel's caption: where the times come from, and that they cover only the latest Stops when they do. */
export function metricsLatencyCaption(window: Metrics["window"]): string {
  const from = "From the task's Stop boundary to each child's settlement, as recorded in the ledger.";
  return window.full ? `${from} The latest ${window.latest.toLocaleString("en")} Stops only.` : from;
}
