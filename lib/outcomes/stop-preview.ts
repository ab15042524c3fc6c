import { Mechanism, WorkItemStatus } from "../ledger/states";
import { OutcomeKind } from "./child-outcome";
import { afterDuration, OUTCOME_WORDS, type Tone } from "./words";

/**
 * What Stop WILL do, in the one vocabulary — the Stop preview (issue 13). Pure: the server builds the facts from
 * the ledger and the plan the engine would record now (lib/cancellation/preview-stop.ts); pages show the words.
 * Each prediction names the outcome kind the child is headed for, so the preview's badge is the one the summary
 * will show once the Stop is done; the sentence says what Stop does to get there, never more than it can.
 */

/** The engine's plan actions, as this pure module needs them (lib/cancellation/plan.ts PlanAction). */
export type PreviewAction = "abort" | "await_partial" | "rollback" | "notify" | "noop";

export const PreviewKind = {
  /** Queued: removed from dispatch, it never starts. */
  neverStarts: "never_starts",
  /** Running local code: its AbortSignal fires; what it did so far is discarded unless it is a complete part. */
  toldToStop: "told_to_stop",
  /** Running and has reported part of its result: stopped, the complete part kept. */
  stopsKeepingPartial: "stops_keeping_partial",
  /** Its service is asked to cancel it; the service is then asked what happened (an acknowledgement is not proof). */
  serviceCancels: "service_cancels",
  /** Undone by the tool's rollback, called with the original request. */
  rolledBack: "rolled_back",
  /** Nothing can stop it: it runs to its end, watched, and is reported. */
  cannotStop: "cannot_stop",
  /** Already sent to its service: the service is asked by operation id whether it took effect (never re-sent). */
  askService: "ask_service",
  /** Already took effect and can be reversed: an operator is asked to approve reversing it. */
  effectNeedsApproval: "effect_needs_approval",
  /** Already took effect and nothing can undo it. */
  effectFinal: "effect_final",
} as const;
export type PreviewKind = (typeof PreviewKind)[keyof typeof PreviewKind];
export const PREVIEW_KINDS = Object.values(PreviewKind);

/** The facts one prediction is made from: the child, the action the plan gives it, and its effect, if any. */
export interface PreviewFacts {
  /** null: the child has ended; the prediction is about its effect. */
  action: PreviewAction | null;
  status: string;
  mechanism: string;
  /** What the child is ("the export", "create order"): a tool's own description, or its name. */
  label: string;
  progress: { done: number; unit?: string } | null;
  /** The effect that took place (committed), for an ended child. */
  effect: { description: string; committedAt: number; reversible: boolean } | null;
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

const number = new Intl.NumberFormat("en-US");
const sofar = (p: PreviewFacts["progress"]) => (p && p.done > 0 ? `about ${number.format(p.done)} ${p.unit ?? "steps"} done so far` : null);

/** What Stop will do to one child, as a prediction. */
export function predict(facts: PreviewFacts, now: number): Prediction {
  const kind = previewKind(facts);
  const headedFor = HEADED_FOR[kind];
  const subject = previewSubject(kind, facts);
  const predicate = previewPredicate(kind, facts, now);
  return { kind, headedFor, tone: OUTCOME_WORDS[headedFor].tone, sentence: `${subject} ${predicate}`, subject, predicate };
}

export function previewKind(f: PreviewFacts): PreviewKind {
  if (f.action === null) return f.effect?.reversible ? PreviewKind.effectNeedsApproval : PreviewKind.effectFinal;
  if (f.status === WorkItemStatus.queued) return PreviewKind.neverStarts;
  if (f.action === "notify" || f.mechanism === Mechanism.none || f.status === WorkItemStatus.unrecoverable) return PreviewKind.cannotStop;
  if (f.status === WorkItemStatus.submitted || f.status === WorkItemStatus.uncertain) {
    return f.action === "rollback" ? PreviewKind.rolledBack : PreviewKind.askService;
  }
  if (f.action === "rollback") return PreviewKind.rolledBack;
  if (f.mechanism === Mechanism.abortSignal) return f.action === "await_partial" ? PreviewKind.stopsKeepingPartial : PreviewKind.toldToStop;
  return PreviewKind.serviceCancels;
}

/** The outcome each prediction heads for: a preview badge is the summary's badge. */
export const HEADED_FOR: Record<PreviewKind, OutcomeKind> = {
  [PreviewKind.neverStarts]: OutcomeKind.neverStarted,
  [PreviewKind.toldToStop]: OutcomeKind.stopping,
  [PreviewKind.stopsKeepingPartial]: OutcomeKind.stoppedPartialKept,
  [PreviewKind.serviceCancels]: OutcomeKind.stopping,
  [PreviewKind.rolledBack]: OutcomeKind.stopping,
  [PreviewKind.cannotStop]: OutcomeKind.couldNotStopRunning,
  [PreviewKind.askService]: OutcomeKind.outcomeUnknown,
  [PreviewKind.effectNeedsApproval]: OutcomeKind.tookEffect,
  [PreviewKind.effectFinal]: OutcomeKind.tookEffect,
};

/** What Stop does to the subject (the sentence without it): "will never start". */
export function previewPredicate(kind: PreviewKind, f: PreviewFacts, now: number): string {
  const done = sofar(f.progress);
  switch (kind) {
    case PreviewKind.neverStarts:
      return `will never start`;
    case PreviewKind.toldToStop:
      return done ? `will be told to stop; ${done} will be discarded unless they form a complete part` : `will be told to stop`;
    case PreviewKind.stopsKeepingPartial:
      return done ? `will stop; ${done} will be kept if they form a complete part` : `will stop; the part it already produced will be kept if it is complete`;
    case PreviewKind.serviceCancels:
      return `will be cancelled at its service${done ? ` (${done})` : ""}, then checked: Stop reports what the service says, not what it was told`;
    case PreviewKind.rolledBack:
      return `will be rolled back, then checked with its service`;
    case PreviewKind.cannotStop:
      return `cannot be stopped: it will run to its end and be reported`;
    case PreviewKind.askService:
      return `was already sent to its service: Stop cannot recall it; the service will be asked whether it took effect`;
    case PreviewKind.effectNeedsApproval:
      return `${ago(f, now)}: Stop cannot undo it; an operator will be asked to approve reversing it`;
    case PreviewKind.effectFinal:
      return `${ago(f, now)}: it cannot be undone`;
  }
}

/** Who the sentence is about: the step (by its label), or the effect it had. */
export const previewSubject = (kind: PreviewKind, f: PreviewFacts): string =>
  (kind === PreviewKind.effectNeedsApproval || kind === PreviewKind.effectFinal) && f.effect ? f.effect.description : f.label;

export const previewSentence = (kind: PreviewKind, f: PreviewFacts, now: number): string => `${previewSubject(kind, f)} ${previewPredicate(kind, f, now)}`;

const ago = (f: PreviewFacts, now: number) => (f.effect ? `took effect ${afterDuration(Math.max(0, now - f.effect.committedAt))} ago` : "took effect");

/**
 * The preview in one line, grouped the way a person counts ("3 queued steps will never start; 1 step cannot be
 * stopped; 1 effect needs an operator's approval to reverse"). Nothing to stop → says so.
 */
export function previewHeadline(kinds: PreviewKind[]): string {
  if (!kinds.length) return "Nothing is running: Stop ends this request and changes nothing.";
  const n = (k: PreviewKind) => kinds.filter((x) => x === k).length;
  const steps = (c: number) => (c === 1 ? "1 step" : `${c} steps`);
  const parts: string[] = [];
  const queued = n(PreviewKind.neverStarts);
  if (queued) parts.push(`${queued === 1 ? "1 queued step" : `${queued} queued steps`} will never start`);
  const stopping = n(PreviewKind.toldToStop) + n(PreviewKind.stopsKeepingPartial) + n(PreviewKind.serviceCancels) + n(PreviewKind.rolledBack);
  if (stopping) parts.push(`${steps(stopping)} will be stopped`);
  const asked = n(PreviewKind.askService);
  if (asked) parts.push(`${steps(asked)} already sent will be checked with the service`);
  const cannot = n(PreviewKind.cannotStop);
  if (cannot) parts.push(`${steps(cannot)} cannot be stopped`);
  const approve = n(PreviewKind.effectNeedsApproval);
  if (approve) parts.push(`${approve === 1 ? "1 effect" : `${approve} effects`} will need an operator's approval to reverse`);
  const final = n(PreviewKind.effectFinal);
  if (final) parts.push(`${final === 1 ? "1 effect" : `${final} effects`} cannot be undone`);
  const text = parts.join("; ");
  return `${text[0].toUpperCase()}${text.slice(1)}.`;
}
