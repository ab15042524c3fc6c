import { describe, expect, it } from "vitest";
import { OutcomeKind } from "../outcomes/child-outcome";
import { judge, Verdict, type ServiceSays } from "./verdict";

describe("the conformance verdict (what Stopline reported vs what the service says)", () => {
  it.each<[OutcomeKind, ServiceSays, boolean, Verdict]>([
    [OutcomeKind.stopped, "committed", true, Verdict.overclaim],
    [OutcomeKind.neverStarted, "committed", true, Verdict.overclaim],
    [OutcomeKind.discarded, "running", false, Verdict.overclaim],
    [OutcomeKind.stopped, "not_committed", true, Verdict.pass],
    [OutcomeKind.neverStarted, "not_asked", true, Verdict.pass],
    [OutcomeKind.tookEffect, "committed", true, Verdict.pass],
    [OutcomeKind.tookEffect, "not_committed", true, Verdict.mismatch],
    [OutcomeKind.completed, "not_committed", false, Verdict.pass],
    [OutcomeKind.outcomeUnknown, "committed", true, Verdict.pass],
    [OutcomeKind.couldNotStopRunning, "running", false, Verdict.pass],
    [OutcomeKind.stoppedPartialKept, "committed", false, Verdict.pass],
    [OutcomeKind.failed, "committed", true, Verdict.overclaim],
  ])("%s vs service %s (commits: %s) → %s", (reported, service, commits, verdict) => {
    expect(judge(reported, service, commits)).toBe(verdict);
  });
});
