/**
 * Is this channel working? Derived from its delivery log (every attempt of every delivery to it), never stored:
 * what the channel's receiver answered is the only evidence. Pure; the words are here too, so the escalations
 * page, the nav's "1 failing" and the API say the same thing.
 *
 *   removed   — deactivated: receives nothing more;
 *   untested  — active, no attempt yet;
 *   healthy   — active, its latest attempt was answered 2xx;
 *   failing   — active, its latest attempt failed (consecutiveFailures ≥ 1 since the last success, or ever).
 *
 * A channel whose last five attempts all failed is "failing", never a green "Active".
 */
export declare const ChannelHealth: {
    readonly removed: "removed";
    readonly untested: "untested";
    readonly healthy: "healthy";
    readonly failing: "failing";
};
export type ChannelHealth = (typeof ChannelHealth)[keyof typeof ChannelHealth];
export interface Attempt {
    /** When the attempt started (ISO). */
    at: string;
    /** The receiver's HTTP status, or null (no answer). */
    status: number | null;
    error: string | null;
}
export interface ChannelHealthFacts {
    health: ChannelHealth;
    /** The latest attempt that succeeded, or null (never). */
    lastSuccessAt: string | null;
    /** The latest attempt that failed, or null. */
    lastFailureAt: string | null;
    /** Failed attempts since the latest success (all of them when none succeeded). */
    consecutiveFailures: number;
    /** Attempts made in all. */
    attempts: number;
}
export declare const succeeded: (a: Attempt) => boolean;
export declare function channelHealth(active: boolean, attempts: readonly Attempt[]): ChannelHealthFacts;
export declare const CHANNEL_HEALTH_WORDS: Record<ChannelHealth, {
    short: string;
    tone: "neutral" | "ok" | "warn" | "danger";
}>;
/** One line about the channel's record: "5 failed in a row · never delivered", "last delivered 14:05". */
export declare function channelHealthSentence(h: ChannelHealthFacts, time: (iso: string) => string): string;
