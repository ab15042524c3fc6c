import { type ChildFacts, type StopFacts, type TaskLike } from "./facts";
/**
 * THE outcome vocabulary: what became of one child, derived from ledger facts only. The summary JSON, its
 * user message, the chat, the console (task detail and list), the audit and its exports all name a child's
 * outcome through `childOutcome` and describe it through `describeOutcome` (words.ts) — nowhere else.
 *
 * Every kind has its words in words.ts (a `Record<OutcomeKind, …>`): a kind without words does not compile.
 */
export declare const OutcomeKind: {
    /** Queued; nobody pressed Stop. */
    readonly waiting: "waiting";
    /** Running; nobody pressed Stop. */
    readonly running: "running";
    /** The service accepted the action; its answer is pending. */
    readonly awaitingService: "awaiting_service";
    /** Stop was pressed; the engine is still stopping this child (its pass has not finished). */
    readonly stopping: "stopping";
    /** Finished its work; nobody pressed Stop. */
    readonly completed: "completed";
    /** Finished before the Stop was recorded: completed work, not a cancellation. */
    readonly completedBeforeStop: "completed_before_stop";
    /** Finished after the Stop although nothing reported a failed stop: it did not stop in time. */
    readonly finishedAfterStop: "finished_after_stop";
    /** Ended with an error; it had no effect. */
    readonly failed: "failed";
    /** Removed from dispatch by the Stop: it never started. */
    readonly neverStarted: "never_started";
    /** Stopped while running (confirmed: the service, or the code itself, said so). */
    readonly stopped: "stopped";
    /** Stopped; a complete, valid part of its result is kept (PARTIAL_RESULT). */
    readonly stoppedPartialKept: "stopped_partial_kept";
    /** Stopped; its unfinished result was discarded. */
    readonly discarded: "discarded";
    /** A read we stopped waiting for: the service may have answered it anyway, and a read changes nothing. */
    readonly abandoned: "abandoned";
    /** A stop was attempted and failed (or there is no way to stop it), and it finished anyway. */
    readonly couldNotStopFinished: "could_not_stop_finished";
    /** A stop was attempted and failed (or there is no way to stop it), and it is still running. */
    readonly couldNotStopRunning: "could_not_stop_running";
    /** Whether it took effect is not known: reconciliation asks the service, and/or a person decides. */
    readonly outcomeUnknown: "outcome_unknown";
    /** Its effect took place (an order placed, an email sent) and stands. */
    readonly tookEffect: "took_effect";
    /** Its effect took place and was reversed by an approved compensation. */
    readonly reversed: "reversed";
};
export type OutcomeKind = (typeof OutcomeKind)[keyof typeof OutcomeKind];
export declare const OUTCOME_KINDS: OutcomeKind[];
/** Why a child could not be stopped. */
export declare const StopFailure: {
    /** Its mechanism is `none`: nothing can stop it. */
    readonly noMechanism: "no_mechanism";
    /** The service refused (or never answered) the cancel. */
    readonly cancelRefused: "cancel_refused";
    /** The service acknowledged the cancel and carried on. */
    readonly cancelIgnored: "cancel_ignored";
    /** It was told to stop and has not (a cooperative child past the engine's wait, a cancel still unanswered). */
    readonly notStopping: "not_stopping";
};
export type StopFailure = (typeof StopFailure)[keyof typeof StopFailure];
/** What a person is (or was) asked to decide about an effect that took place. */
export declare const EffectReview: {
    /** No review item (yet): nobody has been asked. */
    readonly none: "none";
    /** A person decides by `deadline` (whether to reverse it, or — irreversible — how to follow up). */
    readonly awaiting: "awaiting";
    /** Past its deadline, or the reversal met a record someone else changed, or failed: an operator is alerted. */
    readonly escalated: "escalated";
    /** A person approved reversing it; the compensation is under way. */
    readonly reversing: "reversing";
    /** A person decided to keep it. */
    readonly kept: "kept";
};
export type EffectReview = (typeof EffectReview)[keyof typeof EffectReview];
export type ChildOutcome = {
    kind: typeof OutcomeKind.waiting;
} | {
    kind: typeof OutcomeKind.running;
} | {
    kind: typeof OutcomeKind.awaitingService;
    sentBeforeStop: boolean;
} | {
    kind: typeof OutcomeKind.stopping;
} | {
    kind: typeof OutcomeKind.completed;
} | {
    kind: typeof OutcomeKind.completedBeforeStop;
} | {
    kind: typeof OutcomeKind.finishedAfterStop;
    afterStopMs: number;
} | {
    kind: typeof OutcomeKind.failed;
} | {
    kind: typeof OutcomeKind.neverStarted;
} | {
    kind: typeof OutcomeKind.stopped;
} | {
    kind: typeof OutcomeKind.stoppedPartialKept;
} | {
    kind: typeof OutcomeKind.discarded;
    reply: boolean;
    draft: boolean;
} | {
    kind: typeof OutcomeKind.abandoned;
} | {
    kind: typeof OutcomeKind.couldNotStopFinished;
    reason: StopFailure;
    afterStopMs: number;
} | {
    kind: typeof OutcomeKind.couldNotStopRunning;
    reason: StopFailure;
} | {
    kind: typeof OutcomeKind.outcomeUnknown;
    checkingUntil: number | null;
    personDecidesBy: number | null;
} | {
    kind: typeof OutcomeKind.tookEffect;
    reversible: boolean;
    review: EffectReview;
    deadline: number | null;
} | {
    kind: typeof OutcomeKind.reversed;
};
/**
 * What became of one child. Ordered rules — the first that applies decides:
 *  1. an effect the service confirmed decides over any stop status (a late report can commit a "stopped" child):
 *     reversed, or took effect (with whatever a person was asked);
 *  2. an effect of unknown outcome is an unknown outcome, whatever the status says;
 *  3. otherwise the status, read against the Stop (none; recorded and still being worked on; settled) and
 *     against what the stop attempt recorded (mechanism none, cancel refused, cancel acknowledged).
 */
export declare function childOutcome(child: ChildFacts, taskStop: StopFacts): ChildOutcome;
/** Still changing on its own: the engine (or the child) has not reached an outcome a person can rely on. */
export declare const isMoving: (o: ChildOutcome) => boolean;
/** Outcomes that mean "the Stop did not fully hold for this child" (the summary's CANCELLATION_FAILED). */
export declare const isStopFailure: (o: ChildOutcome) => boolean;
/** Outcomes where something happened in the world (or may have) despite the Stop: not a clean cancellation. */
export declare const isNotCleanlyStopped: (o: ChildOutcome) => boolean;
/** Every child's outcome of one task, by work item id (`now` judges leases). */
export declare function outcomesOfTask(task: TaskLike, now: number): Map<string, ChildOutcome>;
