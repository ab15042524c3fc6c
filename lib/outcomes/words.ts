import { EffectReview, EscalationCause, OutcomeKind, StopFailure, type ChildOutcome } from "./child-outcome";

/**
 * The words for each outcome — the only place they are written. `OUTCOME_WORDS` is keyed by every
 * OutcomeKind (and `STOP_FAILURE_WORDS` by every StopFailure): a kind without words does not compile.
 * Plain words only: no ids, HTTP statuses, handles or paths (those sit behind a page's "Details").
 */

/** Colours, as the UI's badges name them: accent = under way, warn = needs attention or not yet known,
 *  ok = done as intended, danger = did not stop / failed, neutral = nothing happened. */
export type Tone = "neutral" | "accent" | "ok" | "warn" | "danger";

/** How the outcomes are grouped on a page ("What stopped", "Could not be stopped", …). */
export const OutcomeGroup = {
  underWay: "under_way",
  stopped: "stopped",
  couldNotStop: "could_not_stop",
  tookEffect: "took_effect",
  unknown: "unknown",
  finished: "finished",
} as const;
export type OutcomeGroup = (typeof OutcomeGroup)[keyof typeof OutcomeGroup];

interface Words {
  /** A badge: two or three words. */
  short: string;
  tone: Tone;
  group: OutcomeGroup;
}

export const OUTCOME_WORDS: Record<OutcomeKind, Words> = {
  [OutcomeKind.waiting]: { short: "waiting", tone: "neutral", group: OutcomeGroup.underWay },
  [OutcomeKind.running]: { short: "running", tone: "accent", group: OutcomeGroup.underWay },
  [OutcomeKind.awaitingService]: { short: "waiting for the service", tone: "accent", group: OutcomeGroup.unknown },
  [OutcomeKind.stopping]: { short: "stopping", tone: "warn", group: OutcomeGroup.underWay },
  [OutcomeKind.completed]: { short: "completed", tone: "ok", group: OutcomeGroup.finished },
  [OutcomeKind.completedBeforeStop]: { short: "completed before Stop", tone: "ok", group: OutcomeGroup.finished },
  [OutcomeKind.finishedAfterStop]: { short: "finished after Stop", tone: "warn", group: OutcomeGroup.couldNotStop },
  [OutcomeKind.failed]: { short: "failed", tone: "danger", group: OutcomeGroup.finished },
  [OutcomeKind.neverStarted]: { short: "never started", tone: "neutral", group: OutcomeGroup.stopped },
  [OutcomeKind.stopped]: { short: "stopped", tone: "neutral", group: OutcomeGroup.stopped },
  [OutcomeKind.stoppedPartialKept]: { short: "stopped, partial kept", tone: "neutral", group: OutcomeGroup.stopped },
  [OutcomeKind.discarded]: { short: "discarded", tone: "neutral", group: OutcomeGroup.stopped },
  [OutcomeKind.abandoned]: { short: "abandoned (a read)", tone: "neutral", group: OutcomeGroup.stopped },
  [OutcomeKind.couldNotStopFinished]: { short: "could not stop — finished anyway", tone: "danger", group: OutcomeGroup.couldNotStop },
  [OutcomeKind.couldNotStopRunning]: { short: "could not stop — still running", tone: "danger", group: OutcomeGroup.couldNotStop },
  [OutcomeKind.outcomeUnknown]: { short: "outcome unknown", tone: "warn", group: OutcomeGroup.unknown },
  [OutcomeKind.tookEffect]: { short: "took effect", tone: "warn", group: OutcomeGroup.tookEffect },
  [OutcomeKind.reversed]: { short: "reversed", tone: "ok", group: OutcomeGroup.tookEffect },
};

/**
 * A badge for one child: the kind's words, except where what the child held contradicts them — a "discarded"
 * child whose draft (or lock, file) the service still holds is never badged "discarded" (issue 20, item 1).
 */
export function outcomeBadgeWords(o: ChildOutcome): { short: string; tone: Tone } {
  if (o.kind === OutcomeKind.discarded && o.held === "not_released")
    return { short: o.draft && !o.reply ? "draft not discarded" : "stopped, not released", tone: "danger" };
  if (o.kind === OutcomeKind.discarded && o.held === "being_released")
    return { short: o.draft && !o.reply ? "discarding the draft" : "stopped, releasing", tone: "warn" };
  return { short: OUTCOME_WORDS[o.kind].short, tone: OUTCOME_WORDS[o.kind].tone };
}

export const STOP_FAILURE_WORDS: Record<StopFailure, string> = {
  [StopFailure.noMechanism]: "it has no way to be stopped",
  [StopFailure.cancelRefused]: "the service refused the cancel",
  [StopFailure.cancelIgnored]: "the service acknowledged the cancel and carried on",
  [StopFailure.notStopping]: "it was told to stop and has not stopped",
};

/** How times are written: the API writes UTC ("14:05 UTC"); a page writes the reader's local time. */
export interface WordsFormat {
  time(ms: number): string;
}

export const utcFormat: WordsFormat = {
  time: (ms) => `${new Date(ms).toISOString().slice(11, 16)} UTC`,
};

/** "less than a second", "4 s", "61 s", "2 min 20 s". */
export function afterDuration(ms: number): string {
  if (ms < 1_000) return "less than a second";
  const s = Math.round(ms / 1_000);
  if (s < 120) return `${s} s`;
  const m = Math.floor(s / 60);
  return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
}

/** The outcome in a phrase ("could not be stopped — the service refused the cancel; it finished 61 s after the Stop"). */
export function describeOutcome(o: ChildOutcome, f: WordsFormat = utcFormat): string {
  switch (o.kind) {
    case OutcomeKind.waiting:
      return "waiting to start";
    case OutcomeKind.running:
      return "running";
    case OutcomeKind.awaitingService:
      return o.sentBeforeStop ? "sent to the service before the Stop — waiting for its answer" : "sent to the service — waiting for its answer";
    case OutcomeKind.stopping:
      return "being stopped";
    case OutcomeKind.completed:
      return "completed";
    case OutcomeKind.completedBeforeStop:
      return "completed before the Stop";
    case OutcomeKind.finishedAfterStop:
      return `finished ${afterDuration(o.afterStopMs)} after the Stop — it did not stop in time`;
    case OutcomeKind.failed:
      return "failed — it had no effect";
    case OutcomeKind.neverStarted:
      return "never started";
    case OutcomeKind.stopped:
      return "stopped";
    case OutcomeKind.stoppedPartialKept:
      return "stopped — the complete part of its result is kept";
    case OutcomeKind.discarded:
      return discardedWords(o);
    case OutcomeKind.abandoned:
      return "stopped waiting for it — a read changes nothing";
    case OutcomeKind.couldNotStopFinished:
      return `could not be stopped — ${STOP_FAILURE_WORDS[o.reason]}; it finished ${afterDuration(o.afterStopMs)} after the Stop`;
    case OutcomeKind.couldNotStopRunning:
      if (o.endedSince) return `could not be stopped — ${STOP_FAILURE_WORDS[o.reason]}; it was still running when the Stop settled`;
      return o.reason === StopFailure.notStopping
        ? "not stopped yet — it was told to stop and is still running"
        : `could not be stopped — ${STOP_FAILURE_WORDS[o.reason]}; it is still running`;
    case OutcomeKind.outcomeUnknown:
      return `outcome unknown — ${unknownWords(o, f)}`;
    case OutcomeKind.tookEffect:
      return `took effect — ${effectWords(o, f)}`;
    case OutcomeKind.reversed:
      return "took effect, then reversed";
  }
}

/** A discarded child in words its resources do not contradict (issue 20, item 1). */
function discardedWords(o: Extract<ChildOutcome, { kind: "discarded" }>): string {
  if (o.draft && !o.reply) {
    if (o.held === "not_released")
      return "stopped before it took effect — but its draft could not be discarded at the service; an operator has been asked to handle it";
    if (o.held === "being_released") return "stopped before it took effect — its draft is being discarded at the service, not confirmed yet";
    if (o.held === "unconfirmed_at_service")
      return "stopped before it took effect — the service could not say whether it still holds its draft; an operator has been asked to check";
    return "stopped — its draft was discarded before it took effect";
  }
  const what = o.reply ? "the unfinished reply was discarded" : "its unfinished result was discarded";
  if (o.held === "not_released") return `stopped — ${what}, but what it held could not be released; an operator has been asked to handle it`;
  if (o.held === "being_released") return `stopped — ${what}; what it held is being released, not confirmed yet`;
  if (o.held === "unconfirmed_at_service")
    return `stopped — ${what}; its service could not say whether it still holds anything of it; an operator has been asked to check`;
  return `stopped — ${what}`;
}

function unknownWords(o: Extract<ChildOutcome, { kind: "outcome_unknown" }>, f: WordsFormat): string {
  if (o.checkingUntil !== null && o.personDecidesBy !== null)
    return `checking with the service until ${f.time(o.checkingUntil)}; a person decides by ${f.time(o.personDecidesBy)}`;
  if (o.checkingUntil !== null) return `checking with the service until ${f.time(o.checkingUntil)}`;
  if (o.personDecidesBy !== null) return `it cannot be checked with the service; a person decides by ${f.time(o.personDecidesBy)}`;
  return "it cannot be checked with the service; a person has to find out";
}

function effectWords(o: Extract<ChildOutcome, { kind: "took_effect" }>, f: WordsFormat): string {
  if (!o.reversible) {
    return o.review === EffectReview.awaiting && o.deadline !== null
      ? `it cannot be undone; an operator follows up by ${f.time(o.deadline)}`
      : "it cannot be undone";
  }
  switch (o.review) {
    case EffectReview.awaiting:
      return o.deadline !== null ? `a person decides by ${f.time(o.deadline)} whether to reverse it` : "a person decides whether to reverse it";
    case EffectReview.escalated:
      return escalatedWords(o, f);
    case EffectReview.reversing:
      return "a person approved reversing it; being reversed";
    case EffectReview.kept:
      return "kept: a person decided not to reverse it";
    case EffectReview.none:
      return "it has not been reversed";
  }
}

/** An escalated reversal, saying which happened (issue 20, item 5). */
function escalatedWords(o: Extract<ChildOutcome, { kind: "took_effect" }>, f: WordsFormat): string {
  switch (o.escalation) {
    case EscalationCause.overdue:
      return o.deadline !== null
        ? `not reversed; nobody decided by ${f.time(o.deadline)}, so an operator has been alerted`
        : "not reversed; nobody decided in time, so an operator has been alerted";
    case EscalationCause.refused:
      return "not reversed; reversing it was refused because the record changed since — an operator has been alerted";
    case EscalationCause.failed:
      return "not reversed; a person approved reversing it but the reversal failed — an operator has been alerted";
    default:
      return "not reversed; an operator has been alerted";
  }
}

export const outcomeWords = (o: ChildOutcome): Words => OUTCOME_WORDS[o.kind];
