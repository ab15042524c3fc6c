import { describe, expect, it } from "vitest";
import { Mechanism, WorkItemKind, WorkItemStatus } from "../../../lib/ledger/states";
import { childOutcome, OutcomeKind } from "../../../lib/outcomes/child-outcome";
import type { ChildFacts, StopFacts } from "../../../lib/outcomes/facts";

/** A Stop of one child (issue 13): the child's own boundary is its Stop; its siblings' is the task's (none). */
const T = 1_000_000;
const child = (over: Partial<ChildFacts>): ChildFacts => ({
  status: WorkItemStatus.running,
  kind: WorkItemKind.localWorker,
  mechanism: Mechanism.abortSignal,
  commitsEffect: false,
  startedAt: T - 5_000,
  finishedAt: null,
  reconcileDeadline: null,
  leaseLive: true,
  cancel: { dispatchedAt: null, answeredAt: null, withdrawnAt: null },
  hasPartial: false,
  effects: [],
  reviews: [],
  ...over,
});
const noTaskStop: StopFacts = { requestedAt: null, settledAt: null };

describe("a child's outcome under a Stop of that child alone", () => {
  it.each<[string, Partial<ChildFacts>, StopFacts, OutcomeKind]>([
    ["running, its own Stop recorded: being stopped", { ownStop: { requestedAt: T, settledAt: null } }, noTaskStop, OutcomeKind.stopping],
    ["running, no Stop of it: running (a sibling's Stop is not its Stop)", { ownStop: null }, noTaskStop, OutcomeKind.running],
    [
      "still stopping after its Stop settled: could not stop",
      { status: WorkItemStatus.cancelling, ownStop: { requestedAt: T, settledAt: T + 100 } },
      noTaskStop,
      OutcomeKind.couldNotStopRunning,
    ],
    [
      "completed after its own Stop: finished after the Stop",
      { status: WorkItemStatus.completed, finishedAt: T + 3_000, ownStop: { requestedAt: T, settledAt: T + 100 } },
      noTaskStop,
      OutcomeKind.finishedAfterStop,
    ],
    [
      "completed before its own Stop",
      { status: WorkItemStatus.completed, finishedAt: T - 1, ownStop: { requestedAt: T, settledAt: T + 100 } },
      noTaskStop,
      OutcomeKind.completedBeforeStop,
    ],
    [
      "the task's Stop came first: the task's decides",
      { status: WorkItemStatus.completed, finishedAt: T + 3_000, ownStop: { requestedAt: T + 5_000, settledAt: null } },
      { requestedAt: T, settledAt: T + 10 },
      OutcomeKind.finishedAfterStop,
    ],
    [
      "its own Stop came first, then the task's",
      { status: WorkItemStatus.completed, finishedAt: T - 1, ownStop: { requestedAt: T, settledAt: null } },
      { requestedAt: T + 5_000, settledAt: null },
      OutcomeKind.completedBeforeStop,
    ],
  ])("%s", (_, facts, taskStop, kind) => {
    expect(childOutcome(child(facts), taskStop).kind).toBe(kind);
  });
});
