import { describe, expect, it } from "vitest";
import { SummaryStatus } from "../../../lib/outcomes/summary-status";
import { refusalOf, refusalSentence, refusedEndReason, TASK_STANDING_WORDS, TaskStanding, taskStanding } from "../../../lib/outcomes/task-standing";

/** The task list's pill: a task's stage read with its Stop's summary status. */
describe("taskStanding", () => {
  it.each<[string, string, SummaryStatus | null, TaskStanding]>([
    ["running, no Stop", "active", null, TaskStanding.running],
    ["Stop recorded, engine still working", "cancel_requested", SummaryStatus.inProgress, TaskStanding.stopping],
    ["stage cancelled but not settled: never shown as settled", "cancelled", SummaryStatus.inProgress, TaskStanding.stopping],
    ["clean Stop", "cancelled", SummaryStatus.cancelled, TaskStanding.stopped],
    ["a Stop with effects is not a clean Stop", "cancelled", SummaryStatus.partiallyCancelled, TaskStanding.stoppedWithEffects],
    ["a child still runs", "cancel_requested", SummaryStatus.cancellationFailed, TaskStanding.stopFailed],
    ["completed by the agent", "completed", null, TaskStanding.completed],
    ["failed", "failed", null, TaskStanding.failed],
    ["a cancelled stage with no Stop status still reads as stopping (no guess)", "cancelled", null, TaskStanding.stopping],
  ])("%s", (_, stage, stopStatus, expected) => {
    expect(taskStanding({ stage, stopStatus })).toBe(expected);
  });

  it("a refused message reads refused, not failed; any other failure stays failed", () => {
    const why = "Tool reports.export_report is quarantined by an incident: exports leak rows.";
    expect(taskStanding({ stage: "failed", stopStatus: null, endReason: refusedEndReason(why) })).toBe(TaskStanding.refused);
    expect(taskStanding({ stage: "failed", stopStatus: null, endReason: "shop.create_order failed: out of stock" })).toBe(TaskStanding.failed);
    expect(refusalOf({ stage: "failed", endReason: refusedEndReason(why) })).toBe(why);
    expect(refusalOf({ stage: "completed", endReason: refusedEndReason(why) })).toBeNull();
    expect(refusalSentence(why)).toBe(
      "The message was refused — nothing was started: Tool reports.export_report is quarantined by an incident: exports leak rows.",
    );
  });

  it("a clean Stop and a Stop with effects have different words and tones", () => {
    expect(TASK_STANDING_WORDS.stopped.short).not.toBe(TASK_STANDING_WORDS.stopped_with_effects.short);
    expect(TASK_STANDING_WORDS.stopped.tone).not.toBe(TASK_STANDING_WORDS.stopped_with_effects.tone);
  });

  it("every standing has words without ids or status codes", () => {
    for (const words of Object.values(TASK_STANDING_WORDS)) {
      expect(words.short).toMatch(/^[a-z —]+$/);
      expect(words.sentence).not.toMatch(/[A-Z_]{4,}|\d{3}/);
    }
  });
});
