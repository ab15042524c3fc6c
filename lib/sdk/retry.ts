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

export const DEFAULT_RETRY: ResolvedRetry = {
  retries: 4,
  baseDelayMs: 200,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 60_000,
  random: Math.random,
  sleep: abortableSleep,
};

export function resolveRetry(options: RetryOptions | false | undefined): ResolvedRetry {
  if (options === false) return { ...DEFAULT_RETRY, retries: 0 };
  return { ...DEFAULT_RETRY, ...stripUndefined(options ?? {}) };
}

/** Statuses worth another attempt: the request timed out, was rate-limited, or the server failed. */
export const isRetryableStatus = (status: number) => status === 408 || status === 429 || status >= 500;

/**
 * How long to wait before retry number `retry` (0 for the first retry): full jitter under an exponentially
 * growing ceiling, but never less than the server's Retry-After.
 */
export function backoffDelay(retry: number, policy: ResolvedRetry, retryAfterMs: number | null = null): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  const jittered = Math.floor(policy.random() * ceiling);
  return retryAfterMs === null ? jittered : Math.max(retryAfterMs, jittered);
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1_000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
