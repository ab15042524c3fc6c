import { describe, expect, it } from "vitest";
import { summarize, type SummaryFacts } from "../../../lib/cancellation/summarize";

/**
 * The summary JSON, built from ledger rows through the one vocabulary (lib/outcomes). What a client of
 * GET /api/tasks/{id}/cancellation relies on: IN_PROGRESS until the engine settled the Stop, every child's
 * outcome named, every resource that could not be released named — tool call, type, handle.
 */

const BOUNDARY = new Date("2026-12-01T12:00:00Z");
const at = (s: number) => new Date(BOUNDARY.getTime() + s * 1_000);

type Item = SummaryFacts["workItems"][number];
const item = (over: Partial<Item> & { id: string }): Item => ({
  status: "completed",
  kind: "remote_tool",
  mechanism: "provider_cancel",
  commitsEffect: false,
  toolName: "reports.export_report",
  correlationId: `call-${over.id}`,
  startedAt: at(-30),
  finishedAt: at(10),
  reconcileDeadline: null,
  leaseExpiresAt: null,
  partialResult: null,
  partialComplete: null,
  cancelDispatchedAt: null,
  cancelAnsweredAt: null,
  cancelWithdrawnAt: null,
  ...over,
});
const facts = (over: Partial<SummaryFacts> = {}): SummaryFacts => ({
  task: { id: "task-1", cancelRequestedAt: BOUNDARY, settledAt: at(2) },
  workItems: [],
  resources: [],
  sideEffects: [],
  reviewItems: [],
  now: at(60),
  ...over,
});

describe("summarize", () => {
  it("IN_PROGRESS until the engine's pass settled the Stop, whatever the children look like meanwhile", () => {
    const children = [item({ id: "a", status: "cancelled", finishedAt: at(1) })];
    const working = summarize(facts({ task: { id: "task-1", cancelRequestedAt: BOUNDARY, settledAt: null }, workItems: children }));
    expect(working.status).toBe("IN_PROGRESS");
    expect(working.settled_at).toBeNull();
    expect(working.user_message).toBe(
      "Stopped new work. One running step stopped. Still finding out what each step did: this summary is final once every check has run.",
    );
    const settled = summarize(facts({ workItems: children }));
    expect(settled).toMatchObject({ status: "CANCELLED", settled_at: at(2).toISOString(), user_message: "Stopped new work. One running step stopped." });
  });

  it("names every resource that could not be released — also one of a child that is not in the cancelled list (defect 3)", () => {
    const s = summarize(
      facts({
        workItems: [item({ id: "exp", status: "completed", cancelDispatchedAt: at(0), cancelAnsweredAt: at(1) })],
        resources: [
          { id: "r1", workItemId: "exp", type: "lock", handle: "exp_1", state: "orphaned" },
          { id: "r2", workItemId: "exp", type: "temp_file", handle: "/tmp/exp_1.csv", state: "released" },
        ],
      }),
    );
    expect(s.orphaned_resources).toEqual([{ tool_call_id: "call-exp", tool_name: "reports.export_report", type: "lock", handle: "exp_1" }]);
    // The verdict as the Stop settled it stays; what happened later is added (issue 20, item 4).
    expect(s.user_message).toBe(
      "Stopped new work. One step could not be stopped — the service refused the cancel; it was still running when the Stop settled. One resource could not be released; an operator has been asked to handle it. Since the Stop: The step reports.export_report: it ran 10 s past the Stop, then finished.",
    );
    expect(s.status).toBe("CANCELLATION_FAILED"); // as settled: the step was still running then
  });

  it("a step that stopped after the engine's pass: its lock and temp file are 'being released' — never called released before their verification", () => {
    const s = summarize(
      facts({
        workItems: [
          item({
            id: "exp",
            status: "partial",
            partialResult: { rows: ["row 1"] },
            partialComplete: true,
            finishedAt: at(3),
            cancelDispatchedAt: at(0),
            cancelAnsweredAt: at(0),
          }),
        ],
        resources: [
          { id: "r1", workItemId: "exp", type: "lock", handle: "exp_1", state: "held" },
          { id: "r2", workItemId: "exp", type: "temp_file", handle: "/tmp/exp_1.csv", state: "held" },
        ],
      }),
    );
    // Its cancel was answered without being withdrawn (refused) and it ended after the settlement: the settled verdict
    // stays, the partial result it ended with is added (issue 20, item 4).
    expect(s.user_message).toBe(
      "Stopped new work. One step could not be stopped — the service refused the cancel; it was still running when the Stop settled. Two resources are being released; Stopline confirms their release next. Since the Stop: The step reports.export_report: it ran 3 s past the Stop, then stopped — the complete part of its result is kept (1 row).",
    );
    expect(s.orphaned_resources).toEqual([]);
    // …and an API reader finds them in a list too: not released yet, not orphaned, not held by running work.
    expect(s.releasing_resources.map((r) => `${r.type}:${r.handle}`)).toEqual(["lock:exp_1", "temp_file:/tmp/exp_1.csv"]);
    expect(s.held_resources).toEqual([]);
  });

  it("a resource whose holder its service still reports running after the Stop (serviceRunningAt): 'still held by a step that is still running', not being released", () => {
    const s = summarize(
      facts({
        workItems: [item({ id: "exp", status: "uncertain", leaseExpiresAt: null, serviceRunningAt: at(2), reconcileDeadline: at(600) })],
        resources: [{ id: "r1", workItemId: "exp", type: "lock", handle: "exp_1", state: "held" }],
      }),
    );
    expect(s.held_resources.map((r) => r.handle)).toEqual(["exp_1"]);
    expect(s.releasing_resources).toEqual([]);
    expect(s.orphaned_resources).toEqual([]);
    expect(s.user_message).toMatch(/One resource is still held by a step that is still running\./);
    expect(s.user_message).not.toMatch(/could not be released|being released/);
  });

  it("written ahead, its service could not say: the ORPHANED resource named by the call's key is unconfirmed — 'may still be held at a service', never 'could not be released' (PostgreSQL seed 1207 #126)", () => {
    const s = summarize(
      facts({
        workItems: [item({ id: "exp", status: "uncertain", finishedAt: null, leaseExpiresAt: null, reconcileDeadline: at(600) })],
        resources: [
          { id: "r-lock", workItemId: "exp", type: "lock", handle: "key-exp", state: "orphaned" },
          { id: "r-temp", workItemId: "exp", type: "temp_file", handle: "key-exp", state: "orphaned" },
        ],
        resourceIntents: [
          { workItemId: "exp", type: "lock", state: "unresolved", resourceId: "r-lock" },
          { workItemId: "exp", type: "temp_file", state: "unresolved", resourceId: "r-temp" },
        ],
      }),
    );
    expect(s.status).toBe("PARTIALLY_CANCELLED"); // a person must check
    expect(s.orphaned_resources).toEqual([]);
    expect(s.unconfirmed_resources.map((r) => [r.type, r.outcome])).toEqual([
      ["lock", "service_could_not_say"],
      ["temp_file", "service_could_not_say"],
    ]);
    expect(s.user_message).toMatch(
      /Two resources may still be held at a service, which could not say whether the step holds them; an operator has been asked to check\./,
    );
    expect(s.user_message).not.toMatch(/could not be released|asks the service what it holds/);
    // The same resources after a release that failed (no unresolved intent): "could not be released".
    const released = summarize(
      facts({
        workItems: [item({ id: "exp", status: "cancelled", finishedAt: at(1) })],
        resources: [{ id: "r-lock", workItemId: "exp", type: "lock", handle: "exp_1", state: "orphaned" }],
        resourceIntents: [],
      }),
    );
    expect(released.user_message).toMatch(/One resource could not be released/);
  });

  it("written ahead, never named: an uncertain export whose worker died may still hold its lock and temp file — listed by call and kind, and said; bound or not-held intents are not (SQLite seed 1209 #324)", () => {
    const s = summarize(
      facts({
        workItems: [
          item({ id: "exp", status: "uncertain", finishedAt: null, leaseExpiresAt: at(8), reconcileDeadline: at(600) }),
          item({ id: "done", status: "cancelled", finishedAt: at(1) }),
        ],
        resourceIntents: [
          { workItemId: "exp", type: "lock", state: "open" },
          { workItemId: "exp", type: "temp_file", state: "open" },
          { workItemId: "done", type: "lock", state: "not_held" },
          { workItemId: "done", type: "temp_file", state: "bound" },
        ],
      }),
    );
    expect(s.status).toBe("PARTIALLY_CANCELLED");
    expect(s.unconfirmed_resources).toEqual([
      { tool_call_id: "call-exp", tool_name: "reports.export_report", type: "lock", outcome: "may_be_held" },
      { tool_call_id: "call-exp", tool_name: "reports.export_report", type: "temp_file", outcome: "may_be_held" },
    ]);
    expect(s.user_message).toMatch(
      /Two resources may still be held at a service: a step's answer never came back, so Stopline asks the service what it holds, then releases and verifies them\./,
    );
    expect(s.orphaned_resources).toEqual([]);
    // Once every intent is settled, nothing is left to say about them.
    const later = summarize(facts({ workItems: [item({ id: "exp", status: "cancelled", finishedAt: at(20) })], resourceIntents: [] }));
    expect(later.unconfirmed_resources).toEqual([]);
    expect(later.user_message).not.toMatch(/may still be held/);
  });

  it("agreement: two actions that took effect and have not been reversed (defect 3)", () => {
    const order = (id: string) => item({ id, kind: "external_action", commitsEffect: true, toolName: "shop.create_order", finishedAt: at(-5) });
    const s = summarize(
      facts({
        workItems: [order("o1"), order("o2")],
        sideEffects: ["o1", "o2"].map((id) => ({
          id: `se-${id}`,
          workItemId: id,
          operationId: `op-${id}`,
          externalRecordId: `ord-${id}`,
          reversible: true,
          description: `order ord-${id}`,
          outcome: "committed",
        })),
      }),
    );
    expect(s.user_message).toBe("Stopped new work. Two actions took effect; they have not been reversed.");
    expect(s.orphaned_side_effects.map((e) => e.description)).toEqual([
      "order ord-o1: took effect — it has not been reversed",
      "order ord-o2: took effect — it has not been reversed",
    ]);
  });

  it("every child's outcome is in tool_calls, in the vocabulary's words", () => {
    const s = summarize(
      facts({
        workItems: [
          item({ id: "q", status: "cancelled", startedAt: null, finishedAt: at(0) }),
          item({ id: "p", status: "partial", partialResult: { rows: ["row 1"] }, partialComplete: true }),
          item({ id: "u", status: "unrecoverable", mechanism: "none", finishedAt: null }),
        ],
      }),
    );
    expect(s.tool_calls.map((c) => [c.tool_call_id, c.outcome.kind, c.outcome.label])).toEqual([
      ["call-q", "never_started", "never started"],
      ["call-p", "stopped_partial_kept", "stopped — the complete part of its result is kept"],
      ["call-u", "could_not_stop_running", "could not be stopped — it has no way to be stopped; it is still running"],
    ]);
    expect(s.status).toBe("CANCELLATION_FAILED");
    expect(s.cancelled_tool_calls.map((c) => [c.tool_call_id, c.cancellation_status, c.partial_result?.marker ?? null])).toEqual([
      ["call-q", "CANCELLED", null],
      ["call-p", "CANCELLED", "PARTIAL_RESULT"],
      ["call-u", "UNRECOVERABLE", null],
    ]);
  });
});
