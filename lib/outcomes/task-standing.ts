import type { Tone } from "./words";
import { SummaryStatus } from "./summary-status";

/**
 * How does this task stand? One pill per task for lists (the console's triage list, counts on the nav): the
 * task's stage read together with its Stop's summary status (`summaryStatus`, IN_PROGRESS until settlement).
 *
 * - A task whose Stop is not settled is "stopping" whatever its stage says: the engine's pass has not finished,
 *   so nothing about it is final (a cancelled stage without `settledAt` is never shown as settled).
 * - A settled Stop is one of three pills: a clean Stop, a Stop with effects (something took or may have taken
 *   effect, finished anyway, or a resource could not be released — PARTIALLY_CANCELLED), and a Stop that failed
 *   (a child still runs — CANCELLATION_FAILED).
 */
export const TaskStanding = {
  running: "running",
  stopping: "stopping",
  stopped: "stopped",
  stoppedWithEffects: "stopped_with_effects",
  stopFailed: "stop_failed",
  completed: "completed",
  failed: "failed",
  /** The message was refused before any work started (a tool it needs is quarantined by an incident): it ended at once. */
  refused: "refused",
} as const;
export type TaskStanding = (typeof TaskStanding)[keyof typeof TaskStanding];
/** The filter's order: what wants attention first. */
export const TASK_STANDINGS: readonly TaskStanding[] = [
  TaskStanding.stopFailed,
  TaskStanding.stopping,
  TaskStanding.stoppedWithEffects,
  TaskStanding.running,
  TaskStanding.stopped,
  TaskStanding.completed,
  TaskStanding.failed,
  TaskStanding.refused,
];

export const TASK_STANDING_WORDS: Record<TaskStanding, { short: string; tone: Tone; sentence: string }> = {
  [TaskStanding.running]: { short: "running", tone: "accent", sentence: "The agent is working on it." },
  [TaskStanding.stopping]: { short: "stopping", tone: "warn", sentence: "Stop was pressed; Stopline is still finding out what each step did." },
  [TaskStanding.stopped]: { short: "stopped cleanly", tone: "neutral", sentence: "Stopped: nothing took effect and nothing is left behind." },
  [TaskStanding.stoppedWithEffects]: {
    short: "stopped — with effects",
    tone: "warn",
    sentence: "Stopped, but something took (or may have taken) effect or was left behind.",
  },
  [TaskStanding.stopFailed]: { short: "could not stop", tone: "danger", sentence: "Stop was pressed and a step is still running." },
  [TaskStanding.completed]: { short: "completed", tone: "ok", sentence: "The agent finished the task." },
  [TaskStanding.failed]: { short: "failed", tone: "danger", sentence: "The task ended with an error." },
  [TaskStanding.refused]: { short: "refused", tone: "neutral", sentence: "The message was refused: nothing was started for it." },
};

/**
 * A message the agent refused before starting anything ends its task at once (stage `failed`) with this reason:
 * nothing runs, nothing is left to stop. `refusedEndReason` writes it (lib/agent/conversation.ts), `refusalOf`
 * reads it back for every page (the chat, the console, the audit) — one spelling.
 */
const REFUSED_PREFIX = "refused: ";
export const refusedEndReason = (why: string): string => `${REFUSED_PREFIX}${why}`;
/** Why the message was refused (null: the task was not a refusal). */
export function refusalOf(task: { stage: string; endReason?: string | null }): string | null {
  return task.stage === "failed" && task.endReason?.startsWith(REFUSED_PREFIX) ? task.endReason.slice(REFUSED_PREFIX.length) : null;
}
/** What the person reads about a refused message (chat reply, console and audit lines). */
export const refusalSentence = (why: string): string => `The message was refused — nothing was started: ${why.replace(/\.$/, "")}.`;

/**
 * The task's standing from its stage and its Stop's summary status (null when nobody pressed Stop).
 * Stages are the ledger's (`active`, `cancel_requested`, `cancelled`, `completed`, `failed`).
 */
export function taskStanding(input: { stage: string; stopStatus: SummaryStatus | null; endReason?: string | null }): TaskStanding {
  if (input.stopStatus !== null) {
    switch (input.stopStatus) {
      case SummaryStatus.inProgress:
        return TaskStanding.stopping;
      case SummaryStatus.cancellationFailed:
        return TaskStanding.stopFailed;
      case SummaryStatus.partiallyCancelled:
        return TaskStanding.stoppedWithEffects;
      case SummaryStatus.cancelled:
        return TaskStanding.stopped;
    }
  }
  if (input.stage === "cancel_requested" || input.stage === "cancelled") return TaskStanding.stopping;
  if (input.stage === "completed") return TaskStanding.completed;
  if (input.stage === "failed") return refusalOf(input) !== null ? TaskStanding.refused : TaskStanding.failed;
  return TaskStanding.running;
}
