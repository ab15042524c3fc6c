import { OutcomeKind } from "./child-outcome";
import { type Tone } from "./words";
/**
 * What Stop WILL do, in the one vocabulary — the Stop preview (issue 13). Pure: the server builds the facts from
 * the ledger and the plan the engine would record now (lib/cancellation/preview-stop.ts); pages show the words.
 * Each prediction names the outcome kind the child is headed for, so the preview's badge is the one the summary
 * will show once the Stop is done; the sentence says what Stop does to get there, never more than it can.
 */
/** The engine's plan actions, as this pure module needs them (lib/cancellation/plan.ts PlanAction). */
export type PreviewAction = "abort" | "await_partial" | "rollback" | "notify" | "noop";
export declare const PreviewKind: {
    /** Queued: removed from dispatch, it never starts. */
    readonly neverStarts: "never_starts";
    /** Running local code: its AbortSignal fires; what it did so far is discarded unless it is a complete part. */
    readonly toldToStop: "told_to_stop";
    /** Running and has reported part of its result: stopped, the complete part kept. */
    readonly stopsKeepingPartial: "stops_keeping_partial";
    /** Its service is asked to cancel it; the service is then asked what happened (an acknowledgement is not proof). */
    readonly serviceCancels: "service_cancels";
    /** Undone by the tool's rollback, called with the original request. */
    readonly rolledBack: "rolled_back";
    /** Nothing can stop it: it runs to its end, watched, and is reported. */
    readonly cannotStop: "cannot_stop";
    /** Already sent to its service: the service is asked by operation id whether it took effect (never re-sent). */
    readonly askService: "ask_service";
    /** Already took effect and can be reversed: an operator is asked to approve reversing it. */
    readonly effectNeedsApproval: "effect_needs_approval";
    /** Already took effect and nothing can undo it. */
    readonly effectFinal: "effect_final";
};
export type PreviewKind = (typeof PreviewKind)[keyof typeof PreviewKind];
export declare const PREVIEW_KINDS: ("ask_service" | "cannot_stop" | "effect_final" | "effect_needs_approval" | "never_starts" | "rolled_back" | "service_cancels" | "stops_keeping_partial" | "told_to_stop")[];
/** The facts one prediction is made from: the child, the action the plan gives it, and its effect, if any. */
export interface PreviewFacts {
    /** null: the child has ended; the prediction is about its effect. */
    action: PreviewAction | null;
    status: string;
    mechanism: string;
    /** What the child is ("the export", "create order"): a tool's own description, or its name. */
    label: string;
    progress: {
        done: number;
        unit?: string;
    } | null;
    /** The effect that took place (committed), for an ended child. */
    effect: {
        description: string;
        committedAt: number;
        reversible: boolean;
    } | null;
}
export interface Prediction {
    kind: PreviewKind;
    /** The outcome the summary will show once the Stop is done (its badge comes from OUTCOME_WORDS). */
    headedFor: OutcomeKind;
    tone: Tone;
    /** "the export will stop; about 1,200 rows written so far will be kept". */
    sentence: string;
    /** The sentence in two parts, so that a page can name the step its own way: "the export" + "will stop; …". */
    subject: string;
    predicate: string;
}
/** What Stop will do to one child, as a prediction. */
export declare function predict(facts: PreviewFacts, now: number): Prediction;
export declare function previewKind(f: PreviewFacts): PreviewKind;
/** The outcome each prediction heads for: a preview badge is the summary's badge. */
export declare const HEADED_FOR: Record<PreviewKind, OutcomeKind>;
/** What Stop does to the subject (the sentence without it): "will never start". */
export declare function previewPredicate(kind: PreviewKind, f: PreviewFacts, now: number): string;
/** Who the sentence is about: the step (by its label), or the effect it had. */
export declare const previewSubject: (kind: PreviewKind, f: PreviewFacts) => string;
export declare const previewSentence: (kind: PreviewKind, f: PreviewFacts, now: number) => string;
/**
 * The preview in one line, grouped the way a person counts ("3 queued steps will never start; 1 step cannot be
 * stopped; 1 effect needs an operator's approval to reverse"). Nothing to stop → says so.
 */
export declare function previewHeadline(kinds: PreviewKind[]): string;
