import { describe, expect, it } from "vitest";
import { RESOURCE_WORDS, ResourceOutcome, resourceOutcomeOf, verificationWord } from "../../../lib/outcomes/resource-outcome";

/** Was this resource released? Invariant 4: "released" only once a verification query confirmed it. */
describe("resourceOutcomeOf", () => {
  const lease = "2026-12-02T07:00:00.000Z";
  it.each<[string, string, { status: string; leaseExpiresAt: string | null } | undefined, boolean, ResourceOutcome, string]>([
    ["verified released", "released", { status: "partial", leaseExpiresAt: null }, true, ResourceOutcome.released, "released"],
    ["orphaned after cleanup and a retry", "orphaned", { status: "cancelled", leaseExpiresAt: null }, true, ResourceOutcome.notReleased, "not released"],
    [
      "held by a step that ended (its cleanup is next)",
      "held",
      { status: "partial", leaseExpiresAt: null },
      true,
      ResourceOutcome.beingReleased,
      "being released",
    ],
    [
      "asked to be released, not yet verified",
      "release_requested",
      { status: "cancelled_incomplete", leaseExpiresAt: null },
      true,
      ResourceOutcome.beingReleased,
      "being released",
    ],
    [
      "held by an uncertain step whose worker is gone",
      "held",
      { status: "uncertain", leaseExpiresAt: null },
      true,
      ResourceOutcome.beingReleased,
      "being released",
    ],
    [
      "held by an uncertain step whose worker still runs",
      "held",
      { status: "uncertain", leaseExpiresAt: lease },
      true,
      ResourceOutcome.heldByRunningStep,
      "still held",
    ],
    ["held by a step still being stopped", "held", { status: "cancelling", leaseExpiresAt: lease }, true, ResourceOutcome.heldByRunningStep, "still held"],
    ["held by a step at work, no Stop", "held", { status: "running", leaseExpiresAt: lease }, false, ResourceOutcome.inUse, "in use"],
    ["its step unknown", "held", undefined, true, ResourceOutcome.beingReleased, "being released"],
    // issue 20, item 7: a finished request (no Stop) never reads "being released" — nothing is releasing it
    [
      "a finished request's draft its step reported released, no Stop",
      "release_requested",
      { status: "completed", leaseExpiresAt: null },
      false,
      ResourceOutcome.reportedReleased,
      "released by its step",
    ],
    [
      "a finished request's lock its step never released, no Stop",
      "held",
      { status: "completed", leaseExpiresAt: null },
      false,
      ResourceOutcome.leftHeld,
      "left held",
    ],
  ])("%s", (_, state, holder, stopped, outcome, short) => {
    expect(resourceOutcomeOf({ state }, holder, stopped)).toBe(outcome);
    expect(RESOURCE_WORDS[outcome].short).toBe(short);
  });
});

/** The word before the time of the last verification query: a query that found it still held did not verify it. */
describe("verificationWord", () => {
  it.each<[ResourceOutcome, string]>([
    [ResourceOutcome.released, "verified"],
    [ResourceOutcome.notReleased, "last checked"],
    [ResourceOutcome.beingReleased, "last checked"],
    [ResourceOutcome.heldByRunningStep, "last checked"],
  ])("%s → %s", (outcome, word) => expect(verificationWord(outcome)).toBe(word));
});
