import { EffectReview, OutcomeKind, StopFailure, type ChildOutcome } from "./child-outcome";
import { findingSentence, type PersonFinding } from "./person-findings";
import { afterDuration, STOP_FAILURE_WORDS, utcFormat, type WordsFormat } from "./words";

/**
 * What the person who pressed Stop is told: the summary's `user_message`, composed from the children's
 * outcomes (child-outcome.ts) and the resources' — recorded facts only, never a model's words. The chat
 * shows it as it is.
 */
export interface MessageFacts {
  /** The engine's pass is done (Task.settledAt); until then the message says it is still finding out. */
  settled: boolean;
  /** Every child of the task (children that completed before the Stop are not news and are left out). */
  children: ChildOutcome[];
  /**
   * Resources not released (orphaned), held by a step that runs on, of a step that ended, still being checked, and
   * written ahead for a step whose answer never named them (it may hold them at its service: asked next).
   */
  resources: { notReleased: number; heldByRunningStep: number; beingReleased?: number; mayBeHeld?: number; serviceCouldNotSay?: number };
  /** What a person established about outcomes Stopline could not (person-findings.ts). */
  findings?: { finding: PersonFinding; what: string }[];
  /** Who stopped it and why, when it was not the person themselves (an incident's kill switch). */
  stoppedBy?: StopOrigin | null;
}

/** Who recorded a Stop and why: its scope (task, conversation, person, incident), the actor and the reason given. */
export interface StopOrigin {
  scope: string;
  by: string | null;
  reason: string | null;
}

/**
 * Who stopped it and why, for the person who did NOT press Stop: an incident's kill switch names the operator who
 * opened it and the incident's reason (the reason the incident form says is shown to everyone refused). Null for
 * the person's own Stop.
 */
export function stopOriginSentence(origin: StopOrigin | null | undefined): string | null {
  if (!origin || origin.scope !== "incident") return null;
  const why = origin.reason?.replace(/^incident:\s*/, "").trim();
  const who = origin.by ? ` that ${actorWords(origin.by)} opened` : "";
  return `An incident${who} stopped this request${why ? `: “${why.replace(/\.$/, "")}”` : ""}.`;
}
/** "operator:olivia" → "operator olivia"; "user:ada@example.com" → "ada@example.com". */
const actorWords = (actor: string) => {
  const [role, ...rest] = actor.split(":");
  const name = rest.join(":");
  if (!name) return actor;
  return role === "user" ? name : `${role} ${name}`;
};

const WORDS = ["No", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten"];
/** "Two drafts", "One step is", "12 steps are". */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${WORDS[n] ?? String(n)} ${n === 1 ? singular : plural}`;
}
const they = (n: number, one: string, many: string) => (n === 1 ? one : many);

type Of<K extends OutcomeKind> = Extract<ChildOutcome, { kind: K }>;
const of = <K extends OutcomeKind>(children: ChildOutcome[], kind: K) => children.filter((c): c is Of<K> => c.kind === kind);

export function userMessage(facts: MessageFacts, f: WordsFormat = utcFormat): string {
  const children = facts.children.filter((c) => c.kind !== OutcomeKind.completedBeforeStop);
  const origin = stopOriginSentence(facts.stoppedBy);
  const s: string[] = origin ? [origin, "Stopped new work."] : ["Stopped new work."];
  if (facts.children.length === 0) s.push("Nothing was running.");
  else if (children.length === 0) s.push("Nothing was running: every step had finished before the Stop.");

  const n = (kind: OutcomeKind) => children.filter((c) => c.kind === kind).length;
  if (n(OutcomeKind.neverStarted)) s.push(`${count(n(OutcomeKind.neverStarted), "queued step")} never started.`);
  if (n(OutcomeKind.stopped)) s.push(`${count(n(OutcomeKind.stopped), "running step")} stopped.`);
  if (n(OutcomeKind.stoppedPartialKept)) s.push(`${count(n(OutcomeKind.stoppedPartialKept), "partial result")} kept.`);
  const discarded = of(children, OutcomeKind.discarded);
  const replies = discarded.filter((d) => d.reply).length;
  const allDrafts = discarded.filter((d) => d.draft && !d.reply);
  const drafts = allDrafts.length;
  // A draft is called discarded only once the service no longer holds it (issue 20, item 1).
  const gone = allDrafts.filter((d) => !d.held).length;
  const stuck = allDrafts.filter((d) => d.held === "not_released").length;
  const going = drafts - gone - stuck;
  if (gone) s.push(`${count(gone, "draft")} discarded.`);
  if (stuck)
    s.push(
      `${count(stuck, "draft")} stopped before ${they(stuck, "it", "they")} took effect, but the service still holds ${they(stuck, "it", "them")}: ${they(stuck, "it", "they")} could not be discarded.`,
    );
  if (going)
    s.push(
      `${count(going, "draft")} stopped before ${they(going, "it", "they")} took effect; discarding ${they(going, "it", "them")} at the service is not confirmed yet.`,
    );
  if (discarded.length - replies - drafts) s.push(`${count(discarded.length - replies - drafts, "unfinished result")} discarded.`);
  if (replies) s.push(`${count(replies, "unfinished reply", "unfinished replies")} discarded.`);
  if (n(OutcomeKind.abandoned)) s.push(`${count(n(OutcomeKind.abandoned), "read")} abandoned; a read changes nothing.`);

  // could not be stopped: still running, then finished anyway — one sentence per reason
  const all = of(children, OutcomeKind.couldNotStopRunning);
  const running = all.filter((c) => !c.endedSince);
  // The verdict as settled of steps that have ended since: their end is told after it ("Since the Stop: …", story.ts).
  const endedSince = all.filter((c) => c.endedSince);
  for (const reason of Object.values(StopFailure)) {
    const k = endedSince.filter((c) => c.reason === reason).length;
    if (k)
      s.push(`${count(k, "step")} could not be stopped — ${pluralReason(reason, k)}; ${they(k, "it was", "they were")} still running when the Stop settled.`);
  }
  for (const reason of Object.values(StopFailure)) {
    const k = running.filter((c) => c.reason === reason).length;
    if (!k) continue;
    if (reason === StopFailure.notStopping)
      s.push(
        `${count(k, "step has", "steps have")} not stopped yet: ${they(k, "it was", "they were")} told to stop and ${they(k, "is", "are")} still running.`,
      );
    else s.push(`${count(k, "step")} could not be stopped — ${pluralReason(reason, k)}; ${they(k, "it is", "they are")} still running.`);
  }
  const finished = of(children, OutcomeKind.couldNotStopFinished);
  for (const reason of Object.values(StopFailure)) {
    const group = finished.filter((c) => c.reason === reason);
    if (!group.length) continue;
    const last = Math.max(...group.map((c) => c.afterStopMs));
    s.push(
      group.length === 1
        ? `One step could not be stopped — ${pluralReason(reason, 1)}; it finished ${afterDuration(last)} after the Stop.`
        : `${count(group.length, "step")} could not be stopped — ${pluralReason(reason, group.length)}; they finished anyway, the last ${afterDuration(last)} after the Stop.`,
    );
  }
  const late = of(children, OutcomeKind.finishedAfterStop);
  if (late.length) {
    const last = Math.max(...late.map((c) => c.afterStopMs));
    s.push(
      late.length === 1
        ? `One step finished ${afterDuration(last)} after the Stop; it did not stop in time.`
        : `${count(late.length, "step")} finished after the Stop (the last ${afterDuration(last)} after it); they did not stop in time.`,
    );
  }

  // effects that took place
  const effects = of(children, OutcomeKind.tookEffect);
  const irreversible = effects.filter((e) => !e.reversible);
  const reversible = effects.filter((e) => e.reversible);
  const byReview = (review: EffectReview) => reversible.filter((e) => e.review === review);
  const earliest = (list: { deadline: number | null }[]) => {
    const ds = list.map((e) => e.deadline).filter((d): d is number => d !== null);
    return ds.length ? Math.min(...ds) : null;
  };
  const awaiting = byReview(EffectReview.awaiting);
  if (awaiting.length) {
    const by = earliest(awaiting);
    s.push(
      `${count(awaiting.length, "action")} took effect; a person decides${by !== null ? ` by ${f.time(by)}` : ""} whether to reverse ${they(awaiting.length, "it", "them")}.`,
    );
  }
  const none = byReview(EffectReview.none);
  if (none.length) s.push(`${count(none.length, "action")} took effect; ${they(none.length, "it has", "they have")} not been reversed.`);
  const reversing = byReview(EffectReview.reversing);
  if (reversing.length)
    s.push(`${count(reversing.length, "action")} took effect; reversing ${they(reversing.length, "it", "them")} was approved and is under way.`);
  const escalated = byReview(EffectReview.escalated);
  if (escalated.length)
    s.push(`${count(escalated.length, "action")} took effect and ${they(escalated.length, "was", "were")} not reversed; an operator has been alerted.`);
  const kept = byReview(EffectReview.kept);
  if (kept.length) s.push(`${count(kept.length, "action")} took effect and ${they(kept.length, "was", "were")} kept.`);
  if (irreversible.length) s.push(`${count(irreversible.length, "action")} took effect and cannot be undone.`);
  if (n(OutcomeKind.reversed)) s.push(`${count(n(OutcomeKind.reversed), "action")} took effect and ${they(n(OutcomeKind.reversed), "was", "were")} reversed.`);

  // what is not known yet
  const sent = of(children, OutcomeKind.awaitingService);
  if (sent.length) s.push(`${count(sent.length, "action")} ${they(sent.length, "was", "were")} sent before the Stop; waiting for the service's answer.`);
  const unknown = of(children, OutcomeKind.outcomeUnknown);
  const checking = unknown.filter((u) => u.checkingUntil !== null);
  if (checking.length) {
    const until = Math.max(...checking.map((u) => u.checkingUntil!));
    const asked = checking.map((u) => u.personDecidesBy).filter((d): d is number => d !== null);
    s.push(
      `${count(checking.length, "outcome is", "outcomes are")} not yet confirmed; Stopline is checking with the service until ${f.time(until)}${asked.length ? `, and a person decides by ${f.time(Math.min(...asked))}` : ""}.`,
    );
  }
  const unchecked = unknown.filter((u) => u.checkingUntil === null);
  if (unchecked.length) {
    const asked = unchecked.map((u) => u.personDecidesBy).filter((d): d is number => d !== null);
    s.push(
      `${count(unchecked.length, "outcome")} cannot be established by Stopline; a person decides${asked.length ? ` by ${f.time(Math.min(...asked))}` : ""}.`,
    );
  }
  if (n(OutcomeKind.failed)) s.push(`${count(n(OutcomeKind.failed), "step")} failed; ${they(n(OutcomeKind.failed), "it", "they")} had no effect.`);

  // what a person established
  for (const finding of facts.findings ?? []) s.push(findingSentence(finding));

  // resources
  const { notReleased, heldByRunningStep, beingReleased = 0, mayBeHeld = 0, serviceCouldNotSay = 0 } = facts.resources;
  if (notReleased) s.push(`${count(notReleased, "resource")} could not be released; an operator has been asked to handle ${they(notReleased, "it", "them")}.`);
  // Written ahead and its service could not say: no release was tried, and it may hold nothing — not "could not be released".
  if (serviceCouldNotSay)
    s.push(
      `${count(serviceCouldNotSay, "resource")} may still be held at a service, which could not say whether the step holds ${they(serviceCouldNotSay, "it", "them")}; an operator has been asked to check.`,
    );
  if (heldByRunningStep) s.push(`${count(heldByRunningStep, "resource is", "resources are")} still held by a step that is still running.`);
  // A step that ended after the engine's pass: its resources are released and verified next — not yet claimed released.
  if (beingReleased)
    s.push(`${count(beingReleased, "resource is", "resources are")} being released; Stopline confirms ${they(beingReleased, "its", "their")} release next.`);
  // Written ahead, never named by an answer (its worker died, or the answer was lost): neither "released" nor nothing.
  if (mayBeHeld)
    s.push(
      `${count(mayBeHeld, "resource")} may still be held at a service: a step's answer never came back, so Stopline asks the service what it holds, then releases and verifies ${they(mayBeHeld, "it", "them")}.`,
    );

  if (!facts.settled) {
    const moving = n(OutcomeKind.stopping);
    if (moving) s.push(`${count(moving, "step is", "steps are")} still being stopped or checked.`);
    s.push("Still finding out what each step did: this summary is final once every check has run.");
  }
  return s.join(" ");
}

const PLURAL_REASON: Record<StopFailure, string> = {
  [StopFailure.noMechanism]: "they have no way to be stopped",
  [StopFailure.cancelRefused]: "the service refused the cancel",
  [StopFailure.cancelIgnored]: "the service acknowledged the cancel and carried on",
  [StopFailure.notStopping]: "they were told to stop and have not stopped",
};
const pluralReason = (reason: StopFailure, n: number) => (n === 1 ? STOP_FAILURE_WORDS[reason] : PLURAL_REASON[reason]);
