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
export const ChannelHealth = { removed: "removed", untested: "untested", healthy: "healthy", failing: "failing" } as const;
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

export const succeeded = (a: Attempt) => a.error === null && a.status !== null && a.status >= 200 && a.status < 300;

export function channelHealth(active: boolean, attempts: readonly Attempt[]): ChannelHealthFacts {
  const ordered = [...attempts].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  let lastSuccessAt: string | null = null;
  let lastFailureAt: string | null = null;
  let consecutiveFailures = 0;
  for (const a of ordered) {
    if (succeeded(a)) {
      lastSuccessAt = a.at;
      consecutiveFailures = 0;
    } else {
      lastFailureAt = a.at;
      consecutiveFailures += 1;
    }
  }
  const health = !active
    ? ChannelHealth.removed
    : ordered.length === 0
      ? ChannelHealth.untested
      : consecutiveFailures > 0
        ? ChannelHealth.failing
        : ChannelHealth.healthy;
  return { health, lastSuccessAt, lastFailureAt, consecutiveFailures, attempts: ordered.length };
}

export const CHANNEL_HEALTH_WORDS: Record<ChannelHealth, { short: string; tone: "neutral" | "ok" | "warn" | "danger" }> = {
  removed: { short: "Removed", tone: "neutral" },
  untested: { short: "Not used yet", tone: "neutral" },
  healthy: { short: "Healthy", tone: "ok" },
  failing: { short: "Failing", tone: "danger" },
};

/** One line about the channel's record: "5 failed in a row · never delivered", "last delivered 14:05". */
export function channelHealthSentence(h: ChannelHealthFacts, time: (iso: string) => string): string {
  if (h.attempts === 0) return h.health === ChannelHealth.removed ? "never used" : "no delivery attempted yet — send a test to check it";
  const success = h.lastSuccessAt ? `last delivered ${time(h.lastSuccessAt)}` : "never delivered";
  if (h.consecutiveFailures === 0) return success;
  const failed =
    h.consecutiveFailures === h.attempts ? `${h.consecutiveFailures} of ${h.attempts} attempts failed` : `${h.consecutiveFailures} failed in a row`;
  return `${failed} · ${success}`;
}
