import { describe, expect, it } from "vitest";
import { choiceLabel, effectiveChoice, enterHint, reviewChoices, type Choice, type ChoiceFacts } from "../../../lib/review/choices";

const facts = (kind: string, over: Partial<ChoiceFacts> = {}): ChoiceFacts => ({ kind, conflict: false, effectKnown: true, ...over });

describe("reviewChoices: the buttons, the keys and the Enter hint agree (issue 20, item 6)", () => {
  it.each<[string, ChoiceFacts, Choice[], Choice | null, Choice | null]>([
    ["a compensation, record unchanged", facts("approve_compensation"), ["approve", "reject"], "approve", "reject"],
    ["a compensation after a conflict: no approval anywhere", facts("approve_compensation", { conflict: true }), ["reject"], "reject", "reject"],
    [
      "a compensation whose record state is not read yet: approval not offered yet",
      facts("approve_compensation", { effectKnown: false }),
      ["reject"],
      null,
      "reject",
    ],
    ["an uncertain outcome: no Reject, so r does nothing", facts("resolve_uncertain"), ["resolve"], "resolve", null],
    [
      "an orphaned resource: r never marks it handled; a retries the release",
      facts("orphaned_resource"),
      ["retry_release", "close_unreleased"],
      "retry_release",
      null,
    ],
    ["an irreversible side effect: no Reject, r does nothing", facts("orphaned_side_effect"), ["resolve"], "resolve", null],
  ])("%s", (_, f, offered, a, r) => {
    const c = reviewChoices(f);
    expect(c.offered).toEqual(offered);
    expect(c.keys).toEqual({ a, r });
    // a key never chooses what no button shows
    for (const k of [c.keys.a, c.keys.r]) if (k) expect(c.offered).toContain(k);
    expect(c.offered).toContain(c.primary);
    // closing a resource that was never verified released is never the main action nor on a key
    expect([c.primary, c.keys.a, c.keys.r]).not.toContain("close_unreleased");
  });

  it("a choice made before a conflict appeared falls back to what is still offered: the hint never says approve", () => {
    const after = reviewChoices(facts("approve_compensation", { conflict: true }));
    const choice = effectiveChoice(after, "approve");
    expect(choice).toBe("reject");
    expect(enterHint(choice, { conflict: true, expectedVersion: "1", kind: "approve_compensation" })).toBe(
      "Enter: keep the record as it is (reject) · Shift+Enter: new line",
    );
  });

  it.each<[Choice, string, string]>([
    ["approve", "approve_compensation", "Approve (version 1)"],
    ["reject", "approve_compensation", "Reject"],
    ["resolve", "resolve_uncertain", "Resolve"],
    ["resolve", "orphaned_side_effect", "Mark handled"],
    ["retry_release", "orphaned_resource", "Retry release"],
    ["close_unreleased", "orphaned_resource", "Close without a verified release"],
  ])("label of %s on %s", (choice, kind, words) => {
    expect(choiceLabel(choice, { conflict: false, expectedVersion: "1", kind })).toBe(words);
  });
});
