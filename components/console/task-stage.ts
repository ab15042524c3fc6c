import { TaskStage } from "@/lib/ledger/states";
import type { BadgeTone } from "@/components/ui/badge";
import { refusalOf } from "@/lib/outcomes/task-standing";

/**
 * How the console names and colours a task's stage. The records are keyed by every TaskStage, so a new
 * stage does not compile until it has a label and a tone. Tones follow the theme: accent = running,
 * warn = needs attention / in progress of stopping, ok = done, danger = failed or stopped.
 */
export const STAGE_LABEL: Record<TaskStage, string> = {
  [TaskStage.active]: "active",
  [TaskStage.cancelRequested]: "stopping",
  [TaskStage.cancelled]: "cancelled",
  [TaskStage.completed]: "completed",
  [TaskStage.failed]: "failed",
};

export const STAGE_TONE: Record<TaskStage, BadgeTone> = {
  [TaskStage.active]: "accent",
  [TaskStage.cancelRequested]: "warn",
  [TaskStage.cancelled]: "danger",
  [TaskStage.completed]: "ok",
  [TaskStage.failed]: "danger",
};

/** The order of the status filter. */
export const STAGES: readonly TaskStage[] = [TaskStage.active, TaskStage.cancelRequested, TaskStage.cancelled, TaskStage.completed, TaskStage.failed];

const KNOWN = new Set<string>(Object.values(TaskStage));
export const isTaskStage = (value: unknown): value is TaskStage => typeof value === "string" && KNOWN.has(value);

export const stageLabel = (stage: string) => (isTaskStage(stage) ? STAGE_LABEL[stage] : stage.replaceAll("_", " "));
export const stageTone = (stage: string): BadgeTone => (isTaskStage(stage) ? STAGE_TONE[stage] : "neutral");

/** A task's badge: its stage, except that a refused message (lib/outcomes refusalOf) reads "refused", not "failed". */
export const taskStageLabel = (task: { stage: string; endReason?: string | null }) => (refusalOf(task) !== null ? "refused" : stageLabel(task.stage));
export const taskStageTone = (task: { stage: string; endReason?: string | null }): BadgeTone => (refusalOf(task) !== null ? "neutral" : stageTone(task.stage));
