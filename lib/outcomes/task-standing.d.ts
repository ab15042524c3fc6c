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
export declare const TaskStanding: {
    readonly running: "running";
    readonly stopping: "stopping";
    readonly stopped: "stopped";
    readonly stoppedWithEffects: "stopped_with_effects";
    readonly stopFailed: "stop_failed";
    readonly completed: "completed";
    readonly failed: "failed";
};
export type TaskStanding = (typeof TaskStanding)[keyof typeof TaskStanding];
/** The filter's order: what wants attention first. */
export declare const TASK_STANDINGS: readonly TaskStanding[];
export declare const TASK_STANDING_WORDS: Record<TaskStanding, {
    short: string;
    tone: Tone;
    sentence: string;
}>;
/**
 * The task's standing from its stage and its Stop's summary status (null when nobody pressed Stop).
 * Stages are the ledger's (`active`, `cancel_requested`, `cancelled`, `completed`, `failed`).
 */
export declare function taskStanding(input: {
    stage: string;
    stopStatus: SummaryStatus | null;
}): TaskStanding;
