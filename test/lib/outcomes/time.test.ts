import { describe, expect, it } from "vitest";
import { ReviewItemKind, ReviewItemStatus, SideEffectOutcome, WorkItemStatus } from "../../../lib/ledger/states";
import { childFacts, stopFacts } from "../../../lib/outcomes/facts";
import { childOutcome } from "../../../lib/outcomes/child-outcome";
import { clockFormat, inReaderZone } from "../../../lib/outcomes/time";
import { describeOutcome, utcFormat } from "../../../lib/outcomes/words";

/** Issue 20, item 5: one time format, in the reader's zone, and an escalation that says which happened. */

const T = Date.parse("2026-12-04T17:01:53Z");
const berlin = clockFormat("Europe/Berlin", "en-GB");
const newYork = clockFormat("America/New_York", "en-US");

describe("one clock format: hour and minute, the reader's zone", () => {
  it.each<[string, ReturnType<typeof clockFormat>, string]>([
    ["UTC (the API's words carry the zone)", utcFormat, "17:01 UTC"],
    ["a reader in Berlin", berlin, "18:01"],
    ["a reader in New York", newYork, "12:01 PM"],
  ])("%s", (_, f, words) => {
    expect(f.time(T)).toBe(words);
  });
});

describe("inReaderZone: server-written words in the reader's clock", () => {
  it.each<[string, string, number, ReturnType<typeof clockFormat>, string]>([
    [
      "a deadline the same day",
      "checking with the service until 17:01 UTC, and a person decides by 17:16 UTC",
      T,
      berlin,
      "checking with the service until 18:01, and a person decides by 18:16",
    ],
    ["past midnight UTC, nearest the reference", "a person decides by 00:30 UTC", Date.parse("2026-12-04T23:50:00Z"), newYork, "a person decides by 07:30 PM"],
    ["the previous evening UTC seen just after midnight", "checking until 23:55 UTC", Date.parse("2026-12-05T00:05:00Z"), berlin, "checking until 00:55"],
    ["words without a time are unchanged", "Stopped new work. One partial result kept.", T, berlin, "Stopped new work. One partial result kept."],
  ])("%s", (_, text, ref, f, words) => {
    expect(inReaderZone(text, ref, f)).toBe(words);
  });

  it("leaves no 'UTC' and no seconds in what a reader sees", () => {
    const seen = inReaderZone("until 17:01 UTC; a person decides by 17:01 UTC", T, newYork);
    expect(seen).not.toMatch(/UTC|\d\d:\d\d:\d\d/);
  });
});

describe("an escalated reversal says which happened — never 'overdue, or refused'", () => {
  const DEADLINE = Date.parse("2026-12-04T17:02:33Z");
  const item = {
    id: "w",
    status: WorkItemStatus.completed,
    kind: "external_action",
    mechanism: "none",
    commitsEffect: true,
    startedAt: new Date(T - 60_000),
    finishedAt: new Date(T - 30_000),
    reconcileDeadline: null,
    leaseExpiresAt: null,
    partialResult: null,
  };
  const outcomeWith = (review: { decidedAt?: number | null; updatedAt?: number | null }) =>
    childOutcome(
      childFacts(
        item,
        {
          sideEffects: [{ id: "e", workItemId: "w", outcome: SideEffectOutcome.committed, reversible: true }],
          reviewItems: [
            {
              workItemId: "w",
              sideEffectId: "e",
              kind: ReviewItemKind.approveCompensation,
              status: ReviewItemStatus.escalated,
              deadline: new Date(DEADLINE),
              decidedAt: review.decidedAt == null ? null : new Date(review.decidedAt),
              updatedAt: review.updatedAt == null ? null : new Date(review.updatedAt),
            },
          ],
        },
        T,
      ),
      stopFacts({ cancelRequestedAt: new Date(T - 45_000), settledAt: new Date(T - 40_000) }),
    );

  it.each<[string, { decidedAt?: number | null; updatedAt?: number | null }, string]>([
    [
      "nobody decided by the deadline",
      { updatedAt: DEADLINE + 1_000 },
      "took effect — not reversed; nobody decided by 17:02 UTC, so an operator has been alerted",
    ],
    [
      "the record changed: reversing it was refused",
      { updatedAt: DEADLINE - 600_000 },
      "took effect — not reversed; reversing it was refused because the record changed since — an operator has been alerted",
    ],
    [
      "approved, and the reversal failed",
      { decidedAt: DEADLINE - 300_000, updatedAt: DEADLINE - 299_000 },
      "took effect — not reversed; a person approved reversing it but the reversal failed — an operator has been alerted",
    ],
  ])("%s", (_, review, words) => {
    const said = describeOutcome(outcomeWith(review), utcFormat);
    expect(said).toBe(words);
    expect(said).not.toMatch(/, or /);
  });
});
