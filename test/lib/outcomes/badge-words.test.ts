import { describe, expect, it } from "vitest";
import { OutcomeKind, type ChildOutcome } from "../../../lib/outcomes/child-outcome";
import { outcomeBadgeWords } from "../../../lib/outcomes/words";

describe("a child's badge never contradicts what it held (issue 20, item 1)", () => {
  const cases: [string, ChildOutcome, { short: string; tone: string }][] = [
    ["a draft discarded and verified", { kind: OutcomeKind.discarded, reply: false, draft: true }, { short: "discarded", tone: "neutral" }],
    [
      "a draft the service still holds",
      { kind: OutcomeKind.discarded, reply: false, draft: true, held: "not_released" },
      { short: "draft not discarded", tone: "danger" },
    ],
    [
      "a draft whose discard is not confirmed yet",
      { kind: OutcomeKind.discarded, reply: false, draft: true, held: "being_released" },
      { short: "discarding the draft", tone: "warn" },
    ],
    [
      "an unfinished result whose lock was not released",
      { kind: OutcomeKind.discarded, reply: false, draft: false, held: "not_released" },
      { short: "stopped, not released", tone: "danger" },
    ],
    [
      "an unfinished result, release under way",
      { kind: OutcomeKind.discarded, reply: false, draft: false, held: "being_released" },
      { short: "stopped, releasing", tone: "warn" },
    ],
    ["a discarded reply", { kind: OutcomeKind.discarded, reply: true, draft: false }, { short: "discarded", tone: "neutral" }],
    ["any other kind keeps its words", { kind: OutcomeKind.stopped }, { short: "stopped", tone: "neutral" }],
  ];
  it.each(cases)("%s", (_, outcome, badge) => expect(outcomeBadgeWords(outcome)).toEqual(badge));
});
