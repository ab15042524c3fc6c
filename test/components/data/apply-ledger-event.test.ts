import { describe, expect, it } from "vitest";
import { applyToRow, applyToTask, type EventLike } from "../../../components/data/apply-ledger-event";

const task = {
  stage: "active",
  updatedAt: "2026-12-01T10:00:00.000Z",
  cancelRequestedAt: null as string | null,
  workItems: [{ id: "w1", status: "running", updatedAt: "2026-12-01T10:00:00.000Z", progress: null as unknown }],
};
const ev = (over: Partial<EventLike>): EventLike => ({
  type: "x",
  entityType: "task",
  workItemId: null,
  toState: null,
  data: null,
  createdAt: "2026-12-01T10:00:05.000Z",
  ...over,
});

describe("applyToTask (the one reducer)", () => {
  it("a Stop: the stage and its time at once", () => {
    expect(applyToTask(task, ev({ toState: "cancel_requested" }))).toMatchObject({ stage: "cancel_requested", cancelRequestedAt: "2026-12-01T10:00:05.000Z" });
  });
  it("a work item's new status; history older than the row is not applied", () => {
    expect(applyToTask(task, ev({ entityType: "workItem", workItemId: "w1", toState: "cancelled" })).workItems[0].status).toBe("cancelled");
    expect(applyToTask(task, ev({ entityType: "workItem", workItemId: "w1", toState: "queued", createdAt: "2026-12-01T09:00:00.000Z" }))).toBe(task);
  });
  it("progress: a newer report replaces an older one, never the reverse", () => {
    const report = (at: string) => ({ at, message: "rows", done: 1, total: 2 });
    const once = applyToTask(task, ev({ type: "work_item.progress", entityType: "workItem", workItemId: "w1", data: report("2026-12-01T10:00:02.000Z") }));
    expect(once.workItems[0].progress).toMatchObject({ at: "2026-12-01T10:00:02.000Z" });
    const older = applyToTask(once, ev({ type: "work_item.progress", entityType: "workItem", workItemId: "w1", data: report("2026-12-01T10:00:01.000Z") }));
    expect(older.workItems[0].progress).toMatchObject({ at: "2026-12-01T10:00:02.000Z" });
  });
  it("an event it does not know changes nothing", () => {
    expect(applyToTask(task, ev({ entityType: "reviewItem", toState: "resolved" }))).toBe(task);
  });
});

describe("applyToRow", () => {
  it("a Stop reads 'stopping' until the settled status arrives — even when the stage is already cancelled", () => {
    const row = { stage: "active", standing: "running" as const, stopStatus: null };
    expect(applyToRow(row, ev({ toState: "cancel_requested" })).standing).toBe("stopping");
    expect(applyToRow(row, ev({ toState: "cancelled" })).standing).toBe("stopping");
    expect(applyToRow(row, ev({ toState: "completed" })).standing).toBe("completed");
  });
});
