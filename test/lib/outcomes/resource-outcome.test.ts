import { describe, expect, it } from "vitest";
import { RESOURCE_WORDS, ResourceOutcome, resourceOutcomeOf, verificationWord, withServiceCouldNotSay } from "../../../lib/outcomes/resource-outcome";

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

  // Written ahead, its service could not say (random conformance, PostgreSQL seed 1207 #126: "Two resources could not be
  // released" while the service held nothing — no release was ever tried).
  it("an orphaned resource standing for an intent its service could not answer for: unconfirmed, never 'could not be released'", () => {
    const holder = { status: "uncertain", leaseExpiresAt: null };
    const outcome = resourceOutcomeOf({ state: "orphaned", serviceCouldNotSay: true }, holder, true);
    expect(outcome).toBe(ResourceOutcome.serviceCouldNotSay);
    expect(RESOURCE_WORDS[outcome].phrase).toBe("may still be held at its service, which could not say; an operator has been asked to check it");
    expect(RESOURCE_WORDS[outcome].phrase).not.toMatch(/could not be released/);
    expect(resourceOutcomeOf({ state: "orphaned", serviceCouldNotSay: false }, holder, true)).toBe(ResourceOutcome.notReleased);
  });
});

describe("withServiceCouldNotSay", () => {
  it("marks exactly the resources bound to unresolved intents", () => {
    const resources = [{ id: "r1" }, { id: "r2" }, { id: "r3" }];
    const intents = [
      { state: "unresolved", resourceId: "r2" },
      { state: "bound", resourceId: "r3" },
      { state: "open", resourceId: null },
    ];
    expect(withServiceCouldNotSay(resources, intents).map((r) => [r.id, r.serviceCouldNotSay])).toEqual([
      ["r1", false],
      ["r2", true],
      ["r3", false],
    ]);
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
