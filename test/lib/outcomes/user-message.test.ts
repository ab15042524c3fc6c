import { describe, expect, it } from "vitest";
import { EffectReview, OutcomeKind, StopFailure, type ChildOutcome } from "../../../lib/outcomes/child-outcome";
import { stopOriginSentence, userMessage } from "../../../lib/outcomes/user-message";
import { utcFormat } from "../../../lib/outcomes/words";

/** The summary's user message: what the person who pressed Stop reads, composed from the children's outcomes. */

const AT = Date.parse("2026-12-01T14:05:00Z");
const say = (children: ChildOutcome[], resources: Parameters<typeof userMessage>[0]["resources"] = { notReleased: 0, heldByRunningStep: 0 }, settled = true) =>
  userMessage({ settled, children, resources }, utcFormat);
const effect = (review: EffectReview, reversible = true): ChildOutcome => ({
  kind: OutcomeKind.tookEffect,
  reversible,
  review,
  deadline: review === EffectReview.awaiting ? AT : null,
});

describe("userMessage", () => {
  it.each<[string, ChildOutcome[], string]>([
    ["nothing was running", [], "Stopped new work. Nothing was running."],
    ["everything had finished", [{ kind: OutcomeKind.completedBeforeStop }], "Stopped new work. Nothing was running: every step had finished before the Stop."],
    [
      "queued and running",
      [{ kind: OutcomeKind.neverStarted }, { kind: OutcomeKind.neverStarted }, { kind: OutcomeKind.stopped }],
      "Stopped new work. Two queued steps never started. One running step stopped.",
    ],
    [
      "discarded: a reply, a draft, a result",
      [
        { kind: OutcomeKind.discarded, reply: true, draft: false },
        { kind: OutcomeKind.discarded, reply: false, draft: true },
        { kind: OutcomeKind.discarded, reply: false, draft: false },
      ],
      "Stopped new work. One draft discarded. One unfinished result discarded. One unfinished reply discarded.",
    ],
    [
      "agreement: two actions, not reversed (defect 3)",
      [effect(EffectReview.none), effect(EffectReview.none)],
      "Stopped new work. Two actions took effect; they have not been reversed.",
    ],
    [
      "one action, a person decides",
      [effect(EffectReview.awaiting)],
      "Stopped new work. One action took effect; a person decides by 14:05 UTC whether to reverse it.",
    ],
    [
      "two irreversible",
      [effect(EffectReview.none, false), effect(EffectReview.awaiting, false)],
      "Stopped new work. Two actions took effect and cannot be undone.",
    ],
    [
      "refused, finished (defect 1)",
      [{ kind: OutcomeKind.couldNotStopFinished, reason: StopFailure.cancelRefused, afterStopMs: 61_000 }],
      "Stopped new work. One step could not be stopped — the service refused the cancel; it finished 61 s after the Stop.",
    ],
    [
      "two with no way to stop them, running",
      [
        { kind: OutcomeKind.couldNotStopRunning, reason: StopFailure.noMechanism },
        { kind: OutcomeKind.couldNotStopRunning, reason: StopFailure.noMechanism },
      ],
      "Stopped new work. Two steps could not be stopped — they have no way to be stopped; they are still running.",
    ],
    [
      "not stopping yet",
      [{ kind: OutcomeKind.couldNotStopRunning, reason: StopFailure.notStopping }],
      "Stopped new work. One step has not stopped yet: it was told to stop and is still running.",
    ],
    [
      "did not stop in time",
      [{ kind: OutcomeKind.finishedAfterStop, afterStopMs: 300 }],
      "Stopped new work. One step finished less than a second after the Stop; it did not stop in time.",
    ],
    [
      "unknown, checked",
      [{ kind: OutcomeKind.outcomeUnknown, checkingUntil: AT, personDecidesBy: null }],
      "Stopped new work. One outcome is not yet confirmed; Stopline is checking with the service until 14:05 UTC.",
    ],
    [
      "unknown, nobody can check (defects 3, 8)",
      [{ kind: OutcomeKind.outcomeUnknown, checkingUntil: null, personDecidesBy: AT }],
      "Stopped new work. One outcome cannot be established by Stopline; a person decides by 14:05 UTC.",
    ],
    ["a read abandoned (defect 3)", [{ kind: OutcomeKind.abandoned }], "Stopped new work. One read abandoned; a read changes nothing."],
  ])("%s", (_, children, words) => {
    expect(say(children)).toBe(words);
  });

  it("resources: not released, and still held by a step that runs on", () => {
    expect(say([{ kind: OutcomeKind.couldNotStopRunning, reason: StopFailure.cancelRefused }], { notReleased: 2, heldByRunningStep: 1 })).toBe(
      "Stopped new work. One step could not be stopped — the service refused the cancel; it is still running. Two resources could not be released; an operator has been asked to handle them. One resource is still held by a step that is still running.",
    );
  });

  it("resources its service could not say about: 'may still be held at a service', never 'could not be released' (seed 1207 #126)", () => {
    expect(
      say([{ kind: OutcomeKind.outcomeUnknown, checkingUntil: null, personDecidesBy: AT }], { notReleased: 0, heldByRunningStep: 0, serviceCouldNotSay: 2 }),
    ).toBe(
      "Stopped new work. One outcome cannot be established by Stopline; a person decides by 14:05 UTC. Two resources may still be held at a service, which could not say whether the step holds them; an operator has been asked to check.",
    );
  });

  it("resources of a step that ended after the engine's pass: being released, never yet called released", () => {
    expect(say([{ kind: OutcomeKind.stoppedPartialKept }], { notReleased: 0, heldByRunningStep: 0, beingReleased: 2 })).toBe(
      "Stopped new work. One partial result kept. Two resources are being released; Stopline confirms their release next.",
    );
  });

  it("written ahead, never named: an uncertain step whose worker died may still hold a lock and a temp file — said so, never silence (random conformance, SQLite seed 1209 #324)", () => {
    expect(say([{ kind: OutcomeKind.outcomeUnknown, checkingUntil: AT, personDecidesBy: null }], { notReleased: 0, heldByRunningStep: 0, mayBeHeld: 2 })).toBe(
      "Stopped new work. One outcome is not yet confirmed; Stopline is checking with the service until 14:05 UTC. Two resources may still be held at a service: a step's answer never came back, so Stopline asks the service what it holds, then releases and verifies them.",
    );
    expect(say([{ kind: OutcomeKind.stopped }], { notReleased: 0, heldByRunningStep: 0, mayBeHeld: 1 }, false)).toContain(
      "One resource may still be held at a service: a step's answer never came back, so Stopline asks the service what it holds, then releases and verifies it.",
    );
  });

  it("before settlement it says it is still finding out — never a final word", () => {
    expect(say([{ kind: OutcomeKind.stopping }, { kind: OutcomeKind.neverStarted }], undefined, false)).toBe(
      "Stopped new work. One queued step never started. One step is still being stopped or checked. Still finding out what each step did: this summary is final once every check has run.",
    );
  });
});

describe("userMessage - what a person established", () => {
  it.each<[string, { finding: "took_effect" | "did_not_take_effect" | "cannot_tell"; what: string }, string]>([
    ["took effect", { finding: "took_effect", what: "order o-1 (two chairs)" }, "An operator confirmed that order o-1 (two chairs) took effect."],
    ["did not", { finding: "did_not_take_effect", what: "order o-2" }, "An operator confirmed that order o-2 did not take effect."],
    [
      "cannot tell",
      { finding: "cannot_tell", what: "the crm.create_record action" },
      "An operator could not establish whether the crm.create_record action took effect.",
    ],
  ])("%s", (_, finding, sentence) => {
    const words = userMessage(
      { settled: true, children: [effect(EffectReview.none)], resources: { notReleased: 0, heldByRunningStep: 0 }, findings: [finding] },
      utcFormat,
    );
    expect(words).toBe(`Stopped new work. One action took effect; it has not been reversed. ${sentence}`);
  });
});

describe("userMessage: a draft is 'discarded' only once the service no longer holds it (issue 20, item 1)", () => {
  it.each<[string, ChildOutcome[], string]>([
    ["discarded and verified", [{ kind: OutcomeKind.discarded, reply: false, draft: true }], "Stopped new work. One draft discarded."],
    [
      "the service still holds it",
      [{ kind: OutcomeKind.discarded, reply: false, draft: true, held: "not_released" }],
      "Stopped new work. One draft stopped before it took effect, but the service still holds it: it could not be discarded. One resource could not be released; an operator has been asked to handle it.",
    ],
    [
      "its release not confirmed yet",
      [{ kind: OutcomeKind.discarded, reply: false, draft: true, held: "being_released" }],
      "Stopped new work. One draft stopped before it took effect; discarding it at the service is not confirmed yet. One resource is being released; Stopline confirms its release next.",
    ],
  ])("%s", (_, children, expected) => {
    const held = children[0].kind === OutcomeKind.discarded ? children[0].held : undefined;
    expect(say(children, { notReleased: held === "not_released" ? 1 : 0, heldByRunningStep: 0, beingReleased: held === "being_released" ? 1 : 0 })).toBe(
      expected,
    );
  });
});

describe("stopOriginSentence: who stopped it and why, when it was not the person", () => {
  it.each<[string, Parameters<typeof stopOriginSentence>[0], string | null]>([
    ["the person's own Stop says nothing more", { scope: "task", by: "user:ada@example.com", reason: null }, null],
    ["a Stop of everything of a conversation by its person", { scope: "conversation", by: "user:ada@example.com", reason: null }, null],
    [
      "an incident names its opener and its reason",
      { scope: "incident", by: "operator:olivia", reason: "incident: exports leak rows of other tenants" },
      "An incident that operator olivia opened stopped this request: “exports leak rows of other tenants”.",
    ],
    [
      "an incident without a recorded opener",
      { scope: "incident", by: null, reason: "incident: the tool double-charges." },
      "An incident stopped this request: “the tool double-charges”.",
    ],
    ["nothing recorded", null, null],
  ])("%s", (_, origin, expected) => {
    expect(stopOriginSentence(origin)).toBe(expected);
  });

  it("the incident sentence comes first in the person's message", () => {
    const message = userMessage(
      {
        settled: true,
        children: [{ kind: OutcomeKind.stoppedPartialKept }],
        resources: { notReleased: 0, heldByRunningStep: 0 },
        stoppedBy: { scope: "incident", by: "operator:olivia", reason: "incident: leak" },
      },
      utcFormat,
    );
    expect(message).toBe("An incident that operator olivia opened stopped this request: “leak”. Stopped new work. One partial result kept.");
  });
});
