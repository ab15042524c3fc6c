import { describe, expect, it } from "vitest";
import { OutcomeKind } from "../../../lib/outcomes/child-outcome";
import type { ChildFacts, StopFacts } from "../../../lib/outcomes/facts";
import { toolResult, toolResultText, type ToolResultFacts } from "../../../lib/outcomes/tool-result-text";
import { userMessage } from "../../../lib/outcomes/user-message";
import { utcFormat } from "../../../lib/outcomes/words";

/**
 * What the agent's model reads as a stopped tool call's result (issue 25), table-tested from the ledger's facts —
 * the same facts `childOutcome` reads, so a row here is a row of the outcome vocabulary.
 */

const STOP = Date.parse("2026-12-04T17:04:00Z");
const DEADLINE = Date.parse("2026-12-04T17:09:00Z");
const settled: StopFacts = { requestedAt: STOP, settledAt: STOP + 2_000 };
const unsettled: StopFacts = { requestedAt: STOP, settledAt: null };
const noStop: StopFacts = { requestedAt: null, settledAt: null };

const child = (over: Partial<ChildFacts> = {}): ChildFacts => ({
  status: "cancelled",
  kind: "remote_tool",
  mechanism: "provider_cancel",
  commitsEffect: false,
  startedAt: STOP - 5_000,
  finishedAt: STOP + 1_000,
  reconcileDeadline: null,
  leaseLive: false,
  cancel: { dispatchedAt: null, answeredAt: null, withdrawnAt: null },
  hasPartial: false,
  effects: [],
  reviews: [],
  ...over,
});
const order = (over: Partial<ChildFacts> = {}) => child({ kind: "external_action", commitsEffect: true, status: "completed", ...over });
const ORDER_EFFECT = { description: "order ord_123 (1 × lamp, €35.00)", externalRecordId: "ord_123" };

const rows: [string, ToolResultFacts, string, OutcomeKind][] = [
  [
    "queued, removed from dispatch",
    { child: child({ startedAt: null }), stop: settled },
    "cancelled before it started — it had no effect",
    OutcomeKind.neverStarted,
  ],
  ["running, stopped", { child: child(), stop: settled }, "stopped before it finished", OutcomeKind.stopped],
  [
    "export stopped, 1,425 rows kept",
    {
      child: child({ status: "partial", hasPartial: true }),
      stop: settled,
      partialResult: { exportId: "exp_1", rows: Array.from({ length: 1_425 }, (_, i) => `row ${i}`) },
    },
    "stopped; 1,425 rows kept (partial)",
    OutcomeKind.stoppedPartialKept,
  ],
  [
    "partial as a count (the AI SDK example)",
    { child: child({ status: "partial", hasPartial: true }), stop: settled, partialResult: { exportId: "exp_1", rowsWritten: 1 } },
    "stopped; 1 row kept (partial)",
    OutcomeKind.stoppedPartialKept,
  ],
  [
    "partial of an unknown shape",
    { child: child({ status: "partial", hasPartial: true }), stop: settled, partialResult: { text: "abc" } },
    "stopped; a complete part of its result kept (partial)",
    OutcomeKind.stoppedPartialKept,
  ],
  [
    "a draft discarded",
    { child: child({ status: "cancelled_incomplete", kind: "external_action", commitsEffect: true, hasPartial: true }), stop: settled },
    "stopped; its draft was discarded before it took effect",
    OutcomeKind.discarded,
  ],
  [
    "the order took effect; a person decides",
    {
      child: order({ effects: [{ outcome: "committed", reversible: true }], reviews: [{ kind: "approve_compensation", status: "open", deadline: DEADLINE }] }),
      stop: settled,
      effects: [{ ...ORDER_EFFECT, outcome: "committed" }],
    },
    "took effect: order ord_123 (1 × lamp, €35.00) went through; a person decides by 17:09 UTC whether to reverse it",
    OutcomeKind.tookEffect,
  ],
  [
    "…a person decided to keep it",
    {
      child: order({
        effects: [{ outcome: "committed", reversible: true }],
        reviews: [{ kind: "approve_compensation", status: "rejected", deadline: DEADLINE }],
      }),
      stop: settled,
      effects: [{ ...ORDER_EFFECT, outcome: "committed" }],
    },
    "took effect: order ord_123 (1 × lamp, €35.00) went through; kept: a person decided not to reverse it",
    OutcomeKind.tookEffect,
  ],
  [
    "…and was reversed",
    {
      child: order({
        effects: [{ outcome: "compensated", reversible: true }],
        reviews: [{ kind: "approve_compensation", status: "approved", deadline: DEADLINE }],
      }),
      stop: settled,
      effects: [{ ...ORDER_EFFECT, outcome: "compensated" }],
    },
    "took effect, then reversed: order ord_123 (1 × lamp, €35.00) was undone",
    OutcomeKind.reversed,
  ],
  [
    "an email cannot be undone",
    {
      child: order({ effects: [{ outcome: "committed", reversible: false }] }),
      stop: settled,
      effects: [{ description: 'email "Welcome" to ada@example.com', externalRecordId: "msg_1", outcome: "committed" }],
    },
    'took effect: email "Welcome" to ada@example.com went through; it cannot be undone',
    OutcomeKind.tookEffect,
  ],
  [
    "outcome unknown, being checked",
    { child: order({ status: "uncertain", reconcileDeadline: DEADLINE, effects: [{ outcome: "unknown", reversible: true }] }), stop: settled },
    "outcome not yet known — Stopline is checking with the service until 17:09 UTC",
    OutcomeKind.outcomeUnknown,
  ],
  [
    "outcome unknown, nothing can ask",
    { child: order({ status: "uncertain", reviews: [{ kind: "resolve_uncertain", status: "open", deadline: DEADLINE }] }), stop: settled },
    "outcome not known — it cannot be checked with the service; a person decides by 17:09 UTC",
    OutcomeKind.outcomeUnknown,
  ],
  [
    "the Stop not settled yet",
    { child: child({ status: "cancelling" }), stop: unsettled },
    "Stop requested; Stopline is still finding out what it did — not yet known whether it stopped or took effect",
    OutcomeKind.stopping,
  ],
  [
    "could not be stopped, finished anyway",
    { child: child({ status: "completed", mechanism: "none", finishedAt: STOP + 61_000 }), stop: settled },
    "could not be stopped — it has no way to be stopped; it finished 61 s after the Stop",
    OutcomeKind.couldNotStopFinished,
  ],
  [
    "a read abandoned",
    { child: child({ mechanism: "abort_signal" }), stop: settled },
    "stopped waiting for it — a read changes nothing",
    OutcomeKind.abandoned,
  ],
  ["failed", { child: child({ status: "failed" }), stop: settled }, "failed — it had no effect", OutcomeKind.failed],
  [
    "completed before the Stop",
    { child: child({ status: "completed", finishedAt: STOP - 1_000 }), stop: settled },
    "completed before the Stop",
    OutcomeKind.completedBeforeStop,
  ],
  [
    "no Stop: an order placed as asked",
    { child: order({ effects: [{ outcome: "committed", reversible: true }] }), stop: noStop, effects: [{ ...ORDER_EFFECT, outcome: "committed" }] },
    "completed: order ord_123 (1 × lamp, €35.00) went through",
    OutcomeKind.completed,
  ],
];

describe("toolResultText", () => {
  it.each(rows)("%s", (_, facts, text, kind) => {
    const r = toolResult(facts, utcFormat);
    expect(r.outcome.kind).toBe(kind);
    expect(r.text).toBe(text);
    expect(toolResultText(facts)).toBe(text);
  });

  it("never claims more than the summary: an order whose effect the service confirmed reads 'took effect' even if its status says cancelled", () => {
    const facts: ToolResultFacts = {
      child: order({ status: "cancelled", effects: [{ outcome: "committed", reversible: true }] }),
      stop: settled,
      effects: [{ ...ORDER_EFFECT, outcome: "committed" }],
    };
    const { text, outcome } = toolResult(facts);
    expect(text).toMatch(/^took effect: order ord_123/);
    expect(text).not.toMatch(/stopped|cancelled/);
    // the person's summary says the same about it
    expect(userMessage({ settled: true, children: [outcome], resources: { notReleased: 0, heldByRunningStep: 0 } })).toMatch(/One action took effect/);
  });

  it("an unknown outcome is never written as stopped or as done", () => {
    for (const [, facts, text, kind] of rows) {
      if (kind !== OutcomeKind.outcomeUnknown && kind !== OutcomeKind.stopping) continue;
      expect(text, text).not.toMatch(/went through|^stopped|cancelled before/);
    }
  });
});
