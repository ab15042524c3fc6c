import type { z } from "zod";
import type { ReviewItemSchema, TaskDetailSchema } from "@/lib/api/schemas";

export type TaskDetail = z.output<typeof TaskDetailSchema>;
export type WorkItem = TaskDetail["workItems"][number];
export type Resource = TaskDetail["resources"][number];
export type SideEffect = TaskDetail["sideEffects"][number];
export type ReviewItem = z.output<typeof ReviewItemSchema>;

import type { BadgeTone } from "@/components/ui/badge";
import { effectLook, resourceLook } from "@/components/labels";

// The one label and colour map (components/labels.ts): the console says and colours what the chat does.
export const resourceTone = (state: string): BadgeTone => resourceLook(state).tone;
export const resourceLabel = (state: string) => resourceLook(state).label;
export const effectTone = (outcome: string): BadgeTone => effectLook(outcome).tone;
export const effectLabel = (outcome: string) => effectLook(outcome).label;
