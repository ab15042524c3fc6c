import { describe, expect, it } from "vitest";
import { Mechanism, WorkItemKind, WorkItemStatus } from "../../../lib/ledger/states";
import { ranOnReviews } from "../../../lib/review/ran-on-reviews";
import { OutcomeKind, StopFailure } from "../../../lib/outcomes/child-outcome";
import type { ChildFacts, StopFacts } from "../../../lib/outcomes/facts";
import { sinceLine, sinceSentence, sinceSettlement, verdictOutcome } from "../../../lib/outcomes/story";

/** The story of a Stop: the verdict as settled stays; what happened since is added (issue 20, item 4). */
const STOP = Date.parse("2026-12-04T16:41:49Z");
const SETTLED = STOP + 3_000;
const stop: StopFacts = { requestedAt: STOP, settledAt: SETTLED };
const exportChild = (over: Partial<ChildFacts> = {}): ChildFacts => ({
  status: WorkItemStatus.partial,
  kind: WorkItemKind.remoteTool,
  mechanism: Mechanism.providerCancel,
  commitsEffect: false,
  startedAt: STOP - 5_000,
  finishedAt: STOP + 25_000,
  reconcileDeadline: null,
  leaseLive: false,
  cancel: { dispatchedAt: STOP + 100, answeredAt: STOP + 200, withdrawnAt: null },
  hasPartial: true,
  effects: [],
  reviews: [],
  ...over,
});

describe("verdictOutcome / sinceSettlement", () => {
  it.each<[string, ChildFacts, string, string | null]>([
    [
      "cancel refused (503), then stopped late with a partial: the verdict stays 'could not be stopped'",
      exportChild(),
      OutcomeKind.couldNotStopRunning,
      "it ran 25 s past the Stop, then stopped — the complete part of its result is kept",
    ],
    [
      "refused, re-sent after the settlement and acknowledged then: still refused at the settlement",
      exportChild({ cancel: { dispatchedAt: SETTLED + 5_000, answeredAt: SETTLED + 5_100, withdrawnAt: SETTLED + 5_100 } }),
      OutcomeKind.couldNotStopRunning,
      "then stopped",
    ],
    [
      "cancel acknowledged and ignored, finished anyway",
      exportChild({
        status: WorkItemStatus.completed,
        hasPartial: false,
        cancel: { dispatchedAt: STOP + 100, answeredAt: STOP + 200, withdrawnAt: STOP + 200 },
      }),
      OutcomeKind.couldNotStopRunning,
      "the service ignored the cancel and ran on: it ran 25 s past the Stop, then finished",
    ],
    ["stopped before the settlement: no story to add", exportChild({ finishedAt: STOP + 1_000 }), OutcomeKind.stoppedPartialKept, null],
    [
      "a commitment is told by its effect, not rewritten",
      exportChild({ commitsEffect: true, kind: WorkItemKind.externalAction }),
      OutcomeKind.stoppedPartialKept,
      null,
    ],
    [
      "still running: the verdict already says so",
      exportChild({ status: WorkItemStatus.uncertain, finishedAt: null, leaseLive: true }),
      OutcomeKind.couldNotStopRunning,
      null,
    ],
  ])("%s", (_, child, verdict, since) => {
    expect(verdictOutcome(child, stop).kind).toBe(verdict);
    const s = sinceSettlement(child, stop);
    if (since === null) expect(s).toBeNull();
    else expect(sinceSentence("The export", s!)).toContain(since);
  });

  it("the verdict of a refused cancel names the refusal, whatever the columns say after a retry", () => {
    expect(verdictOutcome(exportChild({ cancel: { dispatchedAt: SETTLED + 5_000, answeredAt: null, withdrawnAt: null } }), stop)).toEqual({
      kind: OutcomeKind.couldNotStopRunning,
      reason: StopFailure.cancelRefused,
      endedSince: true,
    });
  });

  it("rows the result holds are named", () => {
    const s = sinceSettlement({ ...exportChild(), resultRows: 1425 }, stop)!;
    expect(sinceSentence("The export", s)).toBe("The export: it ran 25 s past the Stop, then stopped — the complete part of its result is kept (1,425 rows).");
  });

  it("a ran-on review line only for a cancel the service acknowledged and ignored", () => {
    expect(
      ranOnReviews([
        { tool_call_id: "a", tool_name: "export", ignored_cancel: true },
        { tool_call_id: "b", tool_name: "other", ignored_cancel: false },
      ]),
    ).toEqual([{ key: "a", line: "export: the service ignored the cancel and ran on — check what it did after the Stop" }]);
  });
});

describe("sinceLine — the summary's since sentence as every page shows it", () => {
  it.each([
    [
      "names the step by its label",
      "The step reports.export_report: it ran 4 s past the Stop, then stopped — the complete part of its result is kept (39 rows).",
      "Exporting the report: it ran 4 s past the Stop, then stopped — the complete part of its result is kept (39 rows).",
    ],
    [
      "the ignored cancel keeps its words",
      "The step reports.export_report: the service ignored the cancel and ran on: it ran 25 s past the Stop, then finished (1,425 rows).",
      "Exporting the report: the service ignored the cancel and ran on: it ran 25 s past the Stop, then finished (1,425 rows).",
    ],
    ["a sentence without the prefix is left as it is", "Something else.", "Something else."],
  ])("%s", (_, sentence, expected) => {
    expect(sinceLine(sentence, "Exporting the report")).toBe(expected);
  });
});
