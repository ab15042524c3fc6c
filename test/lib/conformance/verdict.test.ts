import { describe, expect, it } from "vitest";
import { OutcomeKind } from "../../../lib/outcomes/child-outcome";
import { caseVerdict, FAILING, judge, Verdict, type ServiceSays } from "../../../lib/conformance/verdict";

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

describe("a case's verdict: was its point reached, and could anyone ask the service", () => {
  const ran = { service: "not_committed" as ServiceSays, commitsEffect: true, reached: true, gatedAtCheckpoint: false };
  it("a case that reached its point is judged by the service", () => {
    expect(caseVerdict({ ...ran, reported: OutcomeKind.stopped })).toBe(Verdict.pass);
    expect(caseVerdict({ ...ran, reported: OutcomeKind.stopped, service: "committed" })).toBe(Verdict.overclaim);
  });
  it("a call missing from Stopline's report is an overclaim", () => {
    expect(caseVerdict({ ...ran, reported: null })).toBe(Verdict.overclaim);
  });
  it("a commitment that never passed the checkpoint fails the kit, even when the report agrees with the service", () => {
    const v = caseVerdict({ ...ran, reported: OutcomeKind.completedBeforeStop, service: "committed", reached: false, gatedAtCheckpoint: true });
    expect(v).toBe(Verdict.noCheckpoint);
    expect(FAILING).toContain(v);
  });
  it("any other point not reached tested nothing: 'not reached', never 'pass' (and not a failure)", () => {
    const v = caseVerdict({ ...ran, reported: OutcomeKind.completed, service: "committed", reached: false, gatedAtCheckpoint: false });
    expect(v).toBe(Verdict.notReached);
    expect(FAILING).not.toContain(v);
    expect(caseVerdict({ ...ran, commitsEffect: false, reported: OutcomeKind.completed, service: "committed", reached: false, gatedAtCheckpoint: true })).toBe(
      Verdict.notReached,
    );
  });
  it("a report nobody could check (no inspect(), no witness) is 'unverified', never 'pass'", () => {
    const v = caseVerdict({ ...ran, reported: OutcomeKind.stopped, service: "not_asked" });
    expect(v).toBe(Verdict.unverified);
    expect(FAILING).not.toContain(v);
  });
});
