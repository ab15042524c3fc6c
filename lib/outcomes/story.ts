import { Mechanism, WorkItemStatus } from "../ledger/states";
import { childOutcome, OutcomeKind, StopFailure, type ChildOutcome } from "./child-outcome";
import { childFacts, stopFacts, type ChildFacts, type StopFacts, type TaskLike } from "./facts";
import { afterDuration, describeOutcome, STOP_FAILURE_WORDS, utcFormat, type WordsFormat } from "./words";

/**
 * The story of a Stop: what was settled, then what happened since — never one written over the other (issue 20,
 * item 4; docs/ARCHITECTURE.md "Settled means final; later facts are appended").
 *
 * - `verdictOutcome`: the child's outcome AS SETTLED. A child still running when the engine's pass settled the Stop
 *   (it ended after `settledAt`, or has not ended) was, at settlement, a child that could not be stopped — whatever it
 *   reports later (a late "partial" after the service recovered, a completion). Derived from recorded times only: the
 *   same answer at any later moment.
 * - `sinceSettlement`: what became of such a child after the settlement, as a fact with its time (how long it ran past
 *   the Stop, how it ended, and — when the service acknowledged the cancel and carried on — that it ignored the cancel).
 */
export function verdictOutcome(child: ChildFacts, stop: StopFacts): ChildOutcome {
  const now = childOutcome(child, stop);
  const settledAt = stopOf(child, stop).settledAt;
  // Until it ends, the outcome now IS the settled verdict's continuation ("still running"): nothing to keep apart.
  if (settledAt === null || child.finishedAt === null || !ranOn(child) || !ranPastSettlement(child, settledAt)) return now;
  // An effect the service confirmed (or may have) is not softened into "could not be stopped": it stands as it is.
  if (now.kind === OutcomeKind.tookEffect || now.kind === OutcomeKind.reversed || (now.kind === OutcomeKind.outcomeUnknown && child.effects.length > 0))
    return now;
  return { kind: OutcomeKind.couldNotStopRunning, reason: stopFailureOf(child, settledAt), ...(child.finishedAt !== null ? { endedSince: true } : {}) };
}

/** What happened to a child after the Stop settled (null: nothing — its outcome then is its outcome now). */
export interface SinceSettlement {
  /** How long after the Stop it ended (null: it has not ended yet). */
  endedAfterStopMs: number | null;
  /** Its outcome now (how it ended). */
  now: ChildOutcome;
  /** The service acknowledged the cancel and ran on (a person should look at what it did). */
  ignoredCancel: boolean;
  /** Rows (or similar units) its result holds, when it says so. */
  rows: number | null;
}

export function sinceSettlement(child: ChildFacts & { resultRows?: number | null }, stop: StopFacts): SinceSettlement | null {
  const own = stopOf(child, stop);
  if (own.settledAt === null || own.requestedAt === null || !ranOn(child) || !ranPastSettlement(child, own.settledAt)) return null;
  const now = childOutcome(child, stop);
  const ended = child.finishedAt !== null;
  // Nothing new to add while it still runs: the verdict already says "still running".
  if (!ended) return null;
  return {
    endedAfterStopMs: ended ? Math.max(0, child.finishedAt! - own.requestedAt) : null,
    now,
    ignoredCancel: stopFailureOf(child, own.settledAt) === StopFailure.cancelIgnored,
    rows: child.resultRows ?? null,
  };
}

/** The rows a child's result (or kept partial result) holds, when it is a list of rows (the demo export's shape). */
export function rowsOf(item: { result?: unknown; partialResult?: unknown }): number | null {
  for (const v of [item.partialResult, item.result]) {
    const rows = (v as { rows?: unknown } | null | undefined)?.rows;
    if (Array.isArray(rows)) return rows.length;
  }
  return null;
}

/** "ran 25 s past the Stop, then stopped — the complete part of its result is kept (1,425 rows)". */
export function sinceSentence(what: string, s: SinceSettlement, f: WordsFormat = utcFormat): string {
  const rows = s.rows !== null ? ` (${s.rows.toLocaleString("en-US")} ${s.rows === 1 ? "row" : "rows"})` : "";
  const ignored = s.ignoredCancel ? "the service ignored the cancel and ran on: " : "";
  if (s.endedAfterStopMs === null) return `${what}: ${ignored}${describeOutcome(s.now, f)}.`;
  const how = endedWords(s.now, f);
  return `${what}: ${ignored}it ran ${afterDuration(s.endedAfterStopMs)} past the Stop, then ${how}${rows}.`;
}

/** How a child that ran on ended, without repeating "could not be stopped" (the verdict says that). */
function endedWords(o: ChildOutcome, f: WordsFormat): string {
  switch (o.kind) {
    case OutcomeKind.couldNotStopFinished:
    case OutcomeKind.finishedAfterStop:
    case OutcomeKind.completed:
      return "finished";
    case OutcomeKind.stopped:
      return "stopped";
    case OutcomeKind.stoppedPartialKept:
      return "stopped — the complete part of its result is kept";
    case OutcomeKind.discarded:
      return "stopped — its unfinished result was discarded";
    case OutcomeKind.failed:
      return "failed — it had no effect";
    default:
      return describeOutcome(o, f);
  }
}

/** The review line for a child whose service acknowledged the cancel and ran on (lib/review/ran-on-reviews.ts). */
export const RAN_ON_REVIEW = "the service ignored the cancel and ran on — check what it did after the Stop";

/**
 * A child whose stop is known to have failed at the service or cannot exist: its cancel went out (and was refused, or
 * acknowledged and ignored), or it has no way to be stopped. Commitments are left out: their story is their effect
 * (took effect, unknown, reversed), told by the service's answer and the review items.
 */
const ranOn = (child: ChildFacts) => !child.commitsEffect && (child.cancel.dispatchedAt !== null || child.mechanism === Mechanism.none);

/** A child that ran past the settlement: ended after it, or still not ended (started before it). */
function ranPastSettlement(child: ChildFacts, settledAt: number): boolean {
  if (child.startedAt === null || child.startedAt > settledAt) return false;
  if (child.finishedAt === null) return child.status !== WorkItemStatus.queued;
  return child.finishedAt > settledAt;
}

function stopOf(child: ChildFacts, taskStop: StopFacts): StopFacts {
  return child.ownStop?.requestedAt != null && (taskStop.requestedAt === null || child.ownStop.requestedAt <= taskStop.requestedAt) ? child.ownStop : taskStop;
}

/**
 * Why the child could not be stopped, as it stood at the settlement. The cancel columns hold the LAST attempt: the
 * engine may re-send a refused cancel after the settlement (claimDispatch takes a new dispatch only after a failed
 * answer), so a dispatch — or an acknowledgement — later than the settlement means the one before it was refused.
 */
function stopFailureOf(child: ChildFacts, settledAt: number | null = null): StopFailure {
  if (child.mechanism === Mechanism.none) return StopFailure.noMechanism;
  const { dispatchedAt, answeredAt, withdrawnAt } = child.cancel;
  if (settledAt !== null && ((withdrawnAt !== null && withdrawnAt > settledAt) || (withdrawnAt === null && dispatchedAt !== null && dispatchedAt > settledAt)))
    return StopFailure.cancelRefused;
  if (withdrawnAt !== null) return StopFailure.cancelIgnored;
  if (dispatchedAt !== null && answeredAt !== null) return StopFailure.cancelRefused;
  return StopFailure.notStopping;
}

export { STOP_FAILURE_WORDS };

/** Every child's outcome as the Stop settled it (the chat card groups by it; `since_settlement` adds the rest). */
export function verdictsOfTask(task: TaskLike, now: number): Map<string, ChildOutcome> {
  const stop = stopFacts(task);
  const related = { sideEffects: task.sideEffects, reviewItems: task.reviewItems, resources: task.resources };
  return new Map(task.workItems.map((i) => [i.id, verdictOutcome(childFacts(i, related, now), stop)]));
}

/**
 * A since-settlement sentence as pages show it: the step named by its label ("Exporting the report: it ran 4 s past
 * the Stop, …") instead of its tool id; otherwise the summary's own sentence, word for word. The chat, the console
 * and the audit all read `since_settlement` through this — never their own wording.
 */
export const sinceLine = (sentence: string, label: string): string => sentence.replace(/^The step [\w.]+:/, `${label}:`);
