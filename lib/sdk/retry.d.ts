/**
 * Retry policy of the SDK: exponential backoff with full jitter, honouring Retry-After. Pure apart from the
 * clock; `random` and `sleep` can be replaced (tests, deterministic runs).
 */
export interface RetryOptions {
    /** Retries after the first attempt (default 4; 0 disables retrying). */
    retries?: number;
    /** The backoff's first ceiling (default 200 ms); attempt n waits a random time in [0, min(max, base·2ⁿ)]. */
    baseDelayMs?: number;
    /** The backoff's largest ceiling (default 5 s). */
    maxDelayMs?: number;
    /**
     * A Retry-After longer than this is not waited for: the call fails with the server's answer instead
     * (default 60 s). A Retry-After within it is waited for exactly (never less).
     */
    maxRetryAfterMs?: number;
    /** In [0, 1); default Math.random. */
    random?: () => number;
    /** Default: a timer that rejects with the signal's reason when the signal aborts. */
    sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}
export type ResolvedRetry = Required<RetryOptions>;
export declare const DEFAULT_RETRY: ResolvedRetry;
export declare function resolveRetry(options: RetryOptions | false | undefined): ResolvedRetry;
/** Statuses worth another attempt: the request timed out, was rate-limited, or the server failed. */
export declare const isRetryableStatus: (status: number) => boolean;
/**
 * How long to wait before retry number `retry` (0 for the first retry): full jitter under an exponentially
 * growing ceiling, but never less than the server's Retry-After.
 */
export declare function backoffDelay(retry: number, policy: ResolvedRetry, retryAfterMs?: number | null): number;
/** Retry-After as milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); null when absent or unreadable. */
export declare function parseRetryAfter(value: string | null, now?: number): number | null;
export declare function abortableSleep(ms: number, signal?: AbortSignal): Promise<void>;
