import { describe, expect, it } from "vitest";
import { CANCELLED_BRAND, CancelledError, StoppedError } from "../../../lib/errors";
import { decideRunEnding, type RunEndingFacts } from "../../../lib/tools/run-ending";

const base: RunEndingFacts = {
  mechanism: "abort_signal",
  commitsEffect: false,
  canInspect: false,
  submitted: false,
  checkpointPassed: false,
  stopped: false,
  confirmedStop: false,
  refusedAtCheckpoint: false,
  partial: null,
  message: "boom",
};
const remote = { mechanism: "provider_cancel", canInspect: true } as const;

describe("how a run that threw or was stopped ends — one rule for the in-process worker, the SDK worker and the AI SDK wrapper", () => {
  it.each<[string, Partial<RunEndingFacts>, string, string?]>([
    ["a local call that failed before anything left", {}, "failed"],
    ["a local call stopped by its signal", { stopped: true }, "cancelled"],
    ["a local call stopped after reporting a complete partial result", { stopped: true, partial: { result: 1, complete: true } }, "partial"],
    ["a local call stopped after reporting an incomplete partial result", { stopped: true, partial: { result: 1, complete: false } }, "cancelled_incomplete"],
    ["an accepted action (submitted) that then failed", { submitted: true }, "uncertain", "accepted"],
    ["an accepted action (submitted) that was then stopped", { submitted: true, stopped: true, ...remote }, "uncertain", "accepted"],
    ["a commitment past its checkpoint whose answer was lost", { commitsEffect: true, checkpointPassed: true }, "uncertain", "may_have_reached"],
    [
      "a commitment past its checkpoint, even after the service's own StoppedError",
      { commitsEffect: true, checkpointPassed: true, confirmedStop: true },
      "uncertain",
      "may_have_reached",
    ],
    ["remote work past its checkpoint that failed without a Stop (seed 2027 #0)", { ...remote, checkpointPassed: true }, "uncertain", "may_run_on"],
    ["the same remote work with no inspect(): nobody can ask, so the failure stands", { ...remote, canInspect: false, checkpointPassed: true }, "failed"],
    ["remote work that stopped waiting after the Stop", { ...remote, stopped: true }, "uncertain", "stopped_waiting"],
    ["a rollback tool that stopped waiting after the Stop", { mechanism: "rollback", stopped: true }, "uncertain", "stopped_waiting"],
    ["remote work the service confirmed stopped (StoppedError)", { ...remote, stopped: true, confirmedStop: true }, "cancelled"],
    ["remote work the service confirmed stopped with a partial result", { ...remote, confirmedStop: true, partial: { result: 5, complete: true } }, "partial"],
    ["remote work whose checkpoint the ledger refused after the Stop: nothing was sent", { ...remote, refusedAtCheckpoint: true }, "cancelled"],
    ["remote work whose checkpoint refused while its signal had fired", { ...remote, stopped: true, refusedAtCheckpoint: true }, "cancelled"],
  ])("%s → %s", (_scenario, facts, outcome, why) => {
    const ending = decideRunEnding({ ...base, ...facts });
    expect(ending.outcome).toBe(outcome);
    if (why) expect(ending).toMatchObject({ why });
  });

  it("says what happened in the reason it hands to reconciliation, and keeps a failure's message", () => {
    expect(decideRunEnding({ ...base, submitted: true, message: "socket hang up" })).toMatchObject({ reason: expect.stringContaining("socket hang up") });
    expect(decideRunEnding({ ...base, message: "" })).toEqual({ outcome: "failed", error: "the tool failed" });
    expect(decideRunEnding({ ...base, message: "x".repeat(5000) })).toMatchObject({ error: "x".repeat(4000) });
  });
});

describe("the shared errors match by brand, not by class identity", () => {
  it("a StoppedError from another copy of the SDK, or the SDK's CancelledError, is instanceof the contract's", () => {
    const fromOtherCopy = Object.assign(new Error("x"), { [Symbol.for("stopline.error.stopped")]: true });
    const apiCancelled = Object.assign(new Error("x"), { [CANCELLED_BRAND]: true });
    expect(fromOtherCopy).toBeInstanceOf(StoppedError);
    expect(apiCancelled).toBeInstanceOf(CancelledError);
    expect(new StoppedError("x")).toBeInstanceOf(Error);
    expect(new Error("x")).not.toBeInstanceOf(StoppedError);
    expect(new CancelledError("x")).not.toBeInstanceOf(StoppedError);
    expect(null).not.toBeInstanceOf(CancelledError);
  });

  it("a subclass keeps ordinary instanceof", () => {
    class ExportStopped extends StoppedError {}
    expect(new ExportStopped("x")).toBeInstanceOf(StoppedError);
    expect(new StoppedError("x")).not.toBeInstanceOf(ExportStopped);
  });
});
