import { describe, expect, it } from "vitest";
import { TaskStanding } from "../../../lib/outcomes/task-standing";
import { deadlineWords } from "../../../lib/review/deadline-words";
import { DUE_SOON_MS, sortNeedsMeFirst, Urgency, urgencyOf, type TriageFacts } from "../../../lib/review/triage";

const NOW = Date.parse("2026-12-01T03:00:00Z");
const at = (ms: number) => new Date(NOW + ms).toISOString();
const task = (over: Partial<TriageFacts> & { id?: string } = {}): TriageFacts & { id: string } => ({
  id: "t",
  standing: TaskStanding.running,
  awaitingDecision: 0,
  nextDeadline: null,
  uncertainSteps: 0,
  createdAt: at(-60_000),
  ...over,
});

describe("urgencyOf (needs me first)", () => {
  it.each<[string, Partial<TriageFacts>, Urgency]>([
    ["a decision past its deadline", { awaitingDecision: 1, nextDeadline: at(-1) }, Urgency.overdue],
    ["a deadline exactly now is overdue", { awaitingDecision: 1, nextDeadline: at(0) }, Urgency.overdue],
    ["a deadline within the hour", { awaitingDecision: 1, nextDeadline: at(DUE_SOON_MS) }, Urgency.dueSoon],
    ["a deadline later than that", { awaitingDecision: 1, nextDeadline: at(DUE_SOON_MS + 1) }, Urgency.uncertain],
    ["a Stop still being worked out", { standing: TaskStanding.stopping }, Urgency.uncertain],
    ["a step that could not be stopped", { standing: TaskStanding.stopFailed }, Urgency.uncertain],
    ["an outcome nobody confirmed", { standing: TaskStanding.stoppedWithEffects, uncertainSteps: 1 }, Urgency.uncertain],
    ["a clean Stop", { standing: TaskStanding.stopped }, Urgency.rest],
    ["running, nothing waiting", {}, Urgency.rest],
  ])("%s", (_, facts, expected) => {
    expect(urgencyOf(task(facts), NOW)).toBe(expected);
  });

  it("sorts overdue → due soon → uncertain → the rest; earliest deadline, then newest first", () => {
    const list = [
      task({ id: "rest-old", createdAt: at(-900_000) }),
      task({ id: "rest-new", createdAt: at(-1_000) }),
      task({ id: "uncertain", standing: TaskStanding.stopping }),
      task({ id: "soon", awaitingDecision: 1, nextDeadline: at(10 * 60_000) }),
      task({ id: "overdue-recent", awaitingDecision: 1, nextDeadline: at(-60_000) }),
      task({ id: "overdue-long", awaitingDecision: 2, nextDeadline: at(-3_600_000) }),
    ];
    expect(sortNeedsMeFirst(list, NOW).map((t) => t.id)).toEqual(["overdue-long", "overdue-recent", "soon", "uncertain", "rest-new", "rest-old"]);
  });
});

describe("deadlineWords (one deadline everywhere)", () => {
  it.each<[number, string]>([
    [-30_000, "overdue by less than a minute"],
    [30_000, "due in less than a minute"],
    [-12 * 60_000, "overdue by 12 min"],
    [3 * 3_600_000, "due in 3 h"],
    [-3 * 86_400_000, "overdue by 3 days"],
  ])("%i ms from now", (offset, words) => {
    expect(deadlineWords(at(offset), NOW)).toBe(words);
  });
});
