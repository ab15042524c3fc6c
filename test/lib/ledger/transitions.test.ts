import { describe, expect, it } from "vitest";
import { AppError } from "../../../lib/errors";
import { IllegalTransitionError } from "../../../lib/ledger/errors";
import { IncidentState, ResourceIntentState, ResourceState, ReviewItemStatus, SideEffectOutcome, TaskStage, WorkItemStatus } from "../../../lib/ledger/states";
import { canTransition, TABLES, transition, type Entity } from "../../../lib/ledger/transitions";

const STATES: Record<Entity, string[]> = {
  task: Object.values(TaskStage),
  workItem: Object.values(WorkItemStatus),
  resource: Object.values(ResourceState),
  resourceIntent: Object.values(ResourceIntentState),
  sideEffect: Object.values(SideEffectOutcome),
  reviewItem: Object.values(ReviewItemStatus),
  incident: Object.values(IncidentState),
};

describe("the transition tables", () => {
  it("list every state of every entity, and only known states", () => {
    for (const [entity, states] of Object.entries(STATES) as [Entity, string[]][]) {
      const table = TABLES[entity] as Record<string, readonly string[]>;
      expect(Object.keys(table).sort()).toEqual([...states].sort());
      for (const targets of Object.values(table)) for (const t of targets) expect(states).toContain(t);
    }
  });

  // Every (from, to) pair of every entity: allowed exactly when the table lists it.
  for (const [entity, states] of Object.entries(STATES) as [Entity, string[]][]) {
    const table = TABLES[entity] as Record<string, readonly string[]>;
    for (const from of states) {
      for (const to of states) {
        const allowed = table[from].includes(to);
        it(`${entity}: ${from} → ${to} is ${allowed ? "allowed" : "rejected"}`, () => {
          expect(canTransition(entity, from, to)).toBe(allowed);
          if (allowed) expect(transition(entity, from, to as never)).toBe(to);
          else expect(() => transition(entity, from, to as never)).toThrow(IllegalTransitionError);
        });
      }
    }
  }
});

describe("rules the tables encode", () => {
  it("an incident is lifted only through a request another person confirms; a lifted one never comes back", () => {
    expect(canTransition("incident", "active", "lifted")).toBe(false);
    expect(canTransition("incident", "lift_requested", "lifted")).toBe(true);
    expect(TABLES.incident.lifted).toEqual([]);
  });

  it("a queued item can only start or be removed from dispatch", () => {
    expect(TABLES.workItem.queued).toEqual(["running", "cancelled"]);
  });

  it("terminal work item outcomes never move again", () => {
    for (const s of ["completed", "failed", "cancelled", "partial", "cancelled_incomplete"] as const) expect(TABLES.workItem[s]).toEqual([]);
  });

  it("an item whose outcome is unknown can only be settled by reconciliation, never re-queued", () => {
    expect(canTransition("workItem", "uncertain", "queued")).toBe(false);
    expect(canTransition("workItem", "submitted", "queued")).toBe(false);
    // a holder that saw its accepted job stop after a Stop may report what it kept, before the engine marked it
    expect(canTransition("workItem", "submitted", "partial")).toBe(true);
    expect(canTransition("workItem", "uncertain", "completed")).toBe(true);
  });

  it("a cancelled task cannot become active again", () => {
    expect(canTransition("task", "cancel_requested", "active")).toBe(false);
    expect(canTransition("task", "cancelled", "active")).toBe(false);
  });

  it("a committed side effect can only be compensated, not un-committed", () => {
    expect(canTransition("sideEffect", "committed", "not_committed")).toBe(false);
    expect(canTransition("sideEffect", "committed", "compensated")).toBe(true);
  });

  it("unknown states and inherited object keys are rejected, not crashed on", () => {
    expect(canTransition("workItem", "bogus", "running")).toBe(false);
    expect(canTransition("workItem", "constructor", "running")).toBe(false);
    expect(canTransition("workItem", "queued", "bogus")).toBe(false);
  });

  it("the rejection is an AppError carrying the current state", () => {
    try {
      transition("workItem", "completed", "running");
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(AppError);
      expect((e as AppError).code).toBe("illegal_transition");
      expect((e as AppError).details).toMatchObject({ currentState: "completed", requestedState: "running" });
    }
  });
});
