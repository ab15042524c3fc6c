import { OutcomeKind, StopFailure, type ChildOutcome } from "./child-outcome";
/**
 * The words for each outcome — the only place they are written. `OUTCOME_WORDS` is keyed by every
 * OutcomeKind (and `STOP_FAILURE_WORDS` by every StopFailure): a kind without words does not compile.
 * Plain words only: no ids, HTTP statuses, handles or paths (those sit behind a page's "Details").
 */
/** Colours, as the UI's badges name them: accent = under way, warn = needs attention or not yet known,
 *  ok = done as intended, danger = did not stop / failed, neutral = nothing happened. */
export type Tone = "neutral" | "accent" | "ok" | "warn" | "danger";
/** How the outcomes are grouped on a page ("What stopped", "Could not be stopped", …). */
export declare const OutcomeGroup: {
    readonly underWay: "under_way";
    readonly stopped: "stopped";
    readonly couldNotStop: "could_not_stop";
    readonly tookEffect: "took_effect";
    readonly unknown: "unknown";
    readonly finished: "finished";
};
export type OutcomeGroup = (typeof OutcomeGroup)[keyof typeof OutcomeGroup];
interface Words {
    /** A badge: two or three words. */
    short: string;
    tone: Tone;
    group: OutcomeGroup;
}
export declare const OUTCOME_WORDS: Record<OutcomeKind, Words>;
export declare const STOP_FAILURE_WORDS: Record<StopFailure, string>;
/** How times are written: the API writes UTC ("14:05 UTC"); a page writes the reader's local time. */
export interface WordsFormat {
    time(ms: number): string;
}
export declare const utcFormat: WordsFormat;
/** "less than a second", "4 s", "61 s", "2 min 20 s". */
export declare function afterDuration(ms: number): string;
/** The outcome in a phrase ("could not be stopped — the service refused the cancel; it finished 61 s after the Stop"). */
export declare function describeOutcome(o: ChildOutcome, f?: WordsFormat): string;
export declare const outcomeWords: (o: ChildOutcome) => Words;
export {};
