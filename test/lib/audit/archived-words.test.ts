import { describe, expect, it } from "vitest";
import { archivedHistoryLine, archivedTaskMessage, settledBeforeDay } from "../../../lib/audit/archived-words";

describe("archivedHistoryLine", () => {
  const path = "/srv/stopline/data/archive/stopline-archive-20261205T030000Z-1a2b3c4d.jsonl.gz";
  it.each([
    [
      { taskCount: 1, lastSettledAt: "2026-09-05T10:00:00.000Z", archivedAt: "2026-12-05T03:00:00.000Z", archivePath: path },
      `Older history (1 task settled before 2026-09-06) was archived on 2026-12-05 to ${path}.`,
    ],
    [
      { taskCount: 3, lastSettledAt: "2026-09-05T23:59:59.999Z", archivedAt: "2026-12-05T00:00:00.000Z", archivePath: path },
      `Older history (3 tasks settled before 2026-09-06) was archived on 2026-12-05 to ${path}.`,
    ],
    // a settlement at midnight exactly: that day had it, so "before" is the next day
    [
      { taskCount: 2, lastSettledAt: new Date("2026-09-05T00:00:00.000Z"), archivedAt: new Date("2026-12-31T23:59:00.000Z"), archivePath: "/a.jsonl.gz" },
      "Older history (2 tasks settled before 2026-09-06) was archived on 2026-12-31 to /a.jsonl.gz.",
    ],
    // the year turns
    [
      { taskCount: 12, lastSettledAt: "2026-12-31T18:00:00.000Z", archivedAt: "2027-04-01T01:00:00.000Z", archivePath: "/b" },
      "Older history (12 tasks settled before 2027-01-01) was archived on 2027-04-01 to /b.",
    ],
  ])("%o", (facts, words) => {
    expect(archivedHistoryLine(facts)).toBe(words);
  });

  it("the day named is after every archived settlement, and the day after the last one", () => {
    for (const iso of ["2026-01-01T00:00:00.000Z", "2026-06-15T12:34:56.000Z", "2026-02-28T23:59:59.999Z"]) {
      const day = settledBeforeDay(iso);
      expect(Date.parse(`${day}T00:00:00.000Z`)).toBeGreaterThan(Date.parse(iso));
      expect(Date.parse(`${day}T00:00:00.000Z`) - Date.parse(iso)).toBeLessThanOrEqual(86_400_000);
    }
  });
});

describe("archivedTaskMessage", () => {
  it.each([
    [
      { taskId: "t-1", settledAt: "2026-09-05T10:00:00.000Z", archivedAt: "2026-12-05T03:00:00.000Z", archivePath: "/x/a.jsonl.gz" },
      "task t-1 is no longer in the ledger: it settled on 2026-09-05 and, under the retention policy, was archived on 2026-12-05 to /x/a.jsonl.gz.",
    ],
    [
      { taskId: "t-2", settledAt: "2026-09-05T10:00:00.000Z", archivedAt: "2026-12-05T03:00:00.000Z", archivePath: null },
      "task t-2 is no longer in the ledger: it settled on 2026-09-05 and, under the retention policy, was archived on 2026-12-05; ask support for its audit export.",
    ],
  ])("%o", (facts, words) => {
    expect(archivedTaskMessage(facts)).toBe(words);
  });
});
