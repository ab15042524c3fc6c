import type { z } from "zod";
import type { ReviewItemSchema, TaskDetailSchema } from "@/lib/api/schemas";

export type TaskDetail = z.output<typeof TaskDetailSchema>;
export type WorkItem = TaskDetail["workItems"][number];
export type Resource = TaskDetail["resources"][number];
export type SideEffect = TaskDetail["sideEffects"][number];
export type ReviewItem = z.output<typeof ReviewItemSchema>;

import type { BadgeTone } from "@/components/ui/badge";

/** A work item's status: its label and colour (the label always says it; colour is a second signal). */
export function outcomeLook(status: string): { tone: BadgeTone; bar: string; label: string; settled: boolean } {
  switch (status) {
    case "completed":
      return { tone: "ok", bar: "bg-ok", label: "completed", settled: true };
    case "cancelled":
      return { tone: "neutral", bar: "bg-muted", label: "cancelled", settled: true };
    case "partial":
      return { tone: "accent", bar: "bg-accent", label: "partial result kept", settled: true };
    case "cancelled_incomplete":
      return { tone: "neutral", bar: "bg-muted", label: "cancelled, partial discarded", settled: true };
    case "failed":
      return { tone: "danger", bar: "bg-danger", label: "failed", settled: true };
    case "uncertain":
      return { tone: "warn", bar: "bg-warn", label: "uncertain", settled: false };
    case "unrecoverable":
      return { tone: "warn", bar: "bg-warn/70", label: "cannot be stopped", settled: false };
    case "queued":
      return { tone: "neutral", bar: "bg-line", label: "queued", settled: false };
    case "cancelling":
      return { tone: "warn", bar: "bg-stop/60", label: "cancelling", settled: false };
    default:
      return { tone: "accent", bar: "bg-accent/60", label: status.replaceAll("_", " "), settled: false };
  }
}

export const resourceTone = (state: string): BadgeTone => (state === "released" ? "ok" : state === "orphaned" ? "danger" : "warn");
export const effectTone = (outcome: string): BadgeTone =>
  outcome === "compensated" ? "accent" : outcome === "committed" ? "ok" : outcome === "unknown" ? "warn" : "neutral";
export const effectLabel = (outcome: string) => (outcome === "unknown" ? "uncertain" : outcome.replaceAll("_", " "));
