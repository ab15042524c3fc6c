import { describe, expect, it } from "vitest";
import { ADMIN_EVENT_TYPES } from "../../../lib/auth/admin-events";
import { LedgerEvent, TASK_EVENT_TYPES } from "../../../lib/ledger/events";
import { EVENT_TYPES, LedgerEventRecordSchema } from "../../../lib/api/event-schemas";

const base = {
  seq: 7,
  taskId: "t1",
  workItemId: "w1",
  entityType: "workItem",
  entityId: "w1",
  actor: "worker:1",
  fromState: "running",
  toState: "cancelling",
  reason: null,
  createdAt: "2026-12-05T08:00:00.000Z",
};

/** The API's events: one member per catalogue type, its data typed — what a reader of GET /api/events may rely on. */
describe("the API's ledger event union", () => {
  it("has one member for every type in the catalogue, task and administrative, and no other", () => {
    expect([...EVENT_TYPES].sort()).toEqual([...TASK_EVENT_TYPES, ...ADMIN_EVENT_TYPES].sort());
  });

  it.each<[string, unknown, boolean]>([
    ["a Stop's boundary with its versions", { type: LedgerEvent.taskCancelRequested, data: { intentVersion: 2, previousIntentVersion: 1 } }, true],
    ["an event written without data", { type: LedgerEvent.taskCancelRequested, data: null }, true],
    ["a dataless type", { type: LedgerEvent.taskCancelled, data: null }, true],
    ["a field a later version added reaches the reader", { type: LedgerEvent.resourceReleased, data: { attempt: 1, verifiedBy: "query" } }, true],
    ["progress with the ledger's time", { type: LedgerEvent.workItemProgress, data: { done: 3, total: 10, at: "2026-12-05T08:00:00.000Z" } }, true],
    [
      "a token event never carries more than its facts' shape demands",
      { type: "token.created", data: { name: "ci", role: "agent", prefix: "stl_abcd" } },
      true,
    ],
    ["data of the wrong shape", { type: LedgerEvent.taskCancelRequested, data: { intentVersion: "two" } }, false],
    ["a dataless type with data", { type: LedgerEvent.taskCancelled, data: { anything: 1 } }, false],
    ["a type not in the catalogue", { type: "task.exploded", data: null }, false],
  ])("%s", (_, event, ok) => {
    expect(LedgerEventRecordSchema.safeParse({ ...base, ...(event as object) }).success).toBe(ok);
  });

  it("narrows data by type", () => {
    const event = LedgerEventRecordSchema.parse({
      ...base,
      type: LedgerEvent.resourceIntentBound,
      data: { type: "lock", handle: "h", resourceId: "r1", by: "inspect" },
    });
    if (event.type !== LedgerEvent.resourceIntentBound) throw new Error("narrowing lost");
    expect(event.data?.by).toBe("inspect"); // typed: a misspelt field would not compile
  });
});
