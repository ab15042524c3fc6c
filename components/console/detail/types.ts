import type { z } from "zod";
import type { ReviewItemSchema, TaskDetailSchema } from "@/lib/api/schemas";

export type TaskDetail = z.output<typeof TaskDetailSchema>;
export type WorkItem = TaskDetail["workItems"][number];
export type Resource = TaskDetail["resources"][number];
export type SideEffect = TaskDetail["sideEffects"][number];
export type ReviewItem = z.output<typeof ReviewItemSchema>;

import type { BadgeTone } from "@/components/ui/badge";

export const resourceTone = (state: string): BadgeTone => (state === "released" ? "ok" : state === "orphaned" ? "danger" : "warn");
export const effectTone = (outcome: string): BadgeTone =>
  outcome === "compensated" ? "accent" : outcome === "committed" ? "ok" : outcome === "unknown" ? "warn" : "neutral";
export const effectLabel = (outcome: string) => (outcome === "unknown" ? "uncertain" : outcome.replaceAll("_", " "));
