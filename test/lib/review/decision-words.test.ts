import { describe, expect, it } from "vitest";
import { alreadyDecidedSentence, compensationAnswerSentence, FINDING_WORDS, FINDINGS } from "../../../lib/review/decision-words";

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

describe("compensationAnswerSentence (what the approver reads)", () => {
  it.each<[Parameters<typeof compensationAnswerSentence>[0], string]>([
    [{ status: "compensated", detail: "record rec-1 restored to version 1" }, "Compensation executed: record rec-1 restored to version 1."],
    [{ status: "conflict", detail: "record rec-1 is now at version 3." }, "Not compensated — the record changed: record rec-1 is now at version 3."],
    [{ status: "failed", detail: "the CRM refused: read-only" }, "The service refused the compensation: the CRM refused: read-only. The item is escalated."],
    [
      { status: "unknown", detail: "crm gave no answer (no answer within 5000 ms)" },
      "No answer from the service — the compensation may or may not have taken effect: crm gave no answer (no answer within 5000 ms). The item is escalated.",
    ],
  ])("%o", (answer, words) => {
    expect(compensationAnswerSentence(answer)).toBe(words);
  });

  it("never says an unanswered compensation failed or was executed", () => {
    const s = compensationAnswerSentence({ status: "unknown", detail: "x" });
    expect(s).not.toMatch(/failed|executed|refused/i);
  });
});
