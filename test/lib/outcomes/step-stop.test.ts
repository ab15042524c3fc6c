import { describe, expect, it } from "vitest";
import { OutcomeKind, type ChildOutcome } from "../../../lib/outcomes/child-outcome";
import { stepStopSummary } from "../../../lib/outcomes/step-stop";

/** "Stop this step" (issue 20 item 7): the person reads what that step did, in the vocabulary's words — once it settled. */
describe("stepStopSummary", () => {
  it.each<[string, ChildOutcome, number | null, string | null]>([
    ["still being stopped: nothing to summarise yet", { kind: OutcomeKind.stopping }, null, null],
    ["still running: nothing to summarise yet", { kind: OutcomeKind.running }, null, null],
    [
      "stopped with a partial result kept, its rows counted",
      { kind: OutcomeKind.stoppedPartialKept },
      761,
      "You stopped “Exporting the report” alone: stopped — the complete part of its result is kept (761 rows). The rest of the request was not stopped.",
    ],
    [
      "stopped, nothing kept",
      { kind: OutcomeKind.stopped },
      null,
      "You stopped “Exporting the report” alone: stopped. The rest of the request was not stopped.",
    ],
    [
      "it had already finished",
      { kind: OutcomeKind.completedBeforeStop },
      3000,
      "You stopped “Exporting the report” alone: completed before the Stop (3,000 rows). The rest of the request was not stopped.",
    ],
    [
      "it finished late",
      { kind: OutcomeKind.finishedAfterStop, afterStopMs: 4_000 } as ChildOutcome,
      1,
      "You stopped “Exporting the report” alone: finished 4 s after the Stop — it did not stop in time (1 row). The rest of the request was not stopped.",
    ],
  ])("%s", (_, outcome, rows, expected) => {
    expect(stepStopSummary({ label: "Exporting the report", outcome, rows })).toBe(expected);
  });
});
