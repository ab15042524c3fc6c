import { describe, expect, it } from "vitest";
import { alreadyDecidedSentence, FINDING_WORDS, FINDINGS } from "../../../lib/review/decision-words";

const AT = new Date("2026-12-01T14:05:00Z");

describe("alreadyDecidedSentence (the losing side of simultaneous decisions)", () => {
  it.each<[string, Parameters<typeof alreadyDecidedSentence>[0], string]>([
    [
      "a person rejected",
      { status: "rejected", decidedBy: "operator:otto@stopline.local", decidedAt: AT, resolution: "keep the record" },
      "otto@stopline.local already rejected this at 14:05 UTC (“keep the record”). Your decision was not recorded.",
    ],
    [
      "the engine resolved",
      { status: "resolved", decidedBy: "system:cancellation-engine", decidedAt: AT, resolution: null },
      "Stopline already resolved this at 14:05 UTC. Your decision was not recorded.",
    ],
    [
      "unknown decider and time",
      { status: "approved", decidedBy: null, decidedAt: null, resolution: null },
      "someone already approved this. Your decision was not recorded.",
    ],
  ])("%s", (_, item, words) => {
    expect(alreadyDecidedSentence(item)).toBe(words);
  });

  it("never carries an id", () => {
    const s = alreadyDecidedSentence({ status: "resolved", decidedBy: "operator:otto@stopline.local", decidedAt: AT, resolution: "done" });
    expect(s).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}/);
  });

  it("every finding has a choice and a hint", () => {
    for (const f of FINDINGS) expect(FINDING_WORDS[f].choice.length && FINDING_WORDS[f].hint.length).toBeTruthy();
  });
});
