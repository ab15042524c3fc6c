import { describe, expect, it } from "vitest";
import { NO_RECORD, repairWithTask } from "../../../lib/sdk/ai-repair";
import type { TaskDetail } from "../../../lib/sdk/client";

/**
 * repairWithTask, the pure half of repairToolResults: which tool calls of a stopped turn get the ledger's words, in
 * UI messages and in model messages. (The whole path — a real AI SDK loop stopped mid-tool, ai 6 and ai 7 — is
 * ai-repair.int.test.ts.)
 */

const STOP = "2026-12-04T17:04:00.000Z";
const DEADLINE = "2026-12-04T17:09:00.000Z";
const item = (id: string, over: Record<string, unknown>) => ({
  id,
  kind: "remote_tool",
  toolName: "tool",
  correlationId: id,
  input: {},
  status: "completed",
  mechanism: "abort_signal",
  commitsEffect: false,
  startedAt: "2026-12-04T17:03:00.000Z",
  finishedAt: "2026-12-04T17:04:01.000Z",
  reconcileDeadline: null,
  leaseExpiresAt: null,
  partialResult: null,
  result: null,
  cancelDispatchedAt: null,
  cancelAnsweredAt: null,
  cancelWithdrawnAt: null,
  ...over,
});
const task = {
  id: "task-1",
  cancelRequestedAt: STOP,
  settledAt: "2026-12-04T17:04:02.000Z",
  workItems: [
    item("call-stock", { toolName: "checkStock", finishedAt: "2026-12-04T17:03:30.000Z", result: { chairs: 4 } }), // before the Stop
    item("call-order", { toolName: "createOrder", kind: "external_action", commitsEffect: true, mechanism: "provider_cancel", input: { sku: "lamp" } }),
    item("call-export", {
      toolName: "exportReport",
      status: "partial",
      mechanism: "provider_cancel",
      partialResult: { exportId: "exp_1", rowsWritten: 1_425 },
    }),
    item("gen-1", { toolName: "model:mock:agent", kind: "model_request", status: "cancelled_incomplete" }),
  ],
  sideEffects: [
    {
      id: "se-1",
      workItemId: "call-order",
      operationId: "ord_123",
      externalRecordId: "ord_123",
      reversible: true,
      description: "order ord_123",
      outcome: "committed",
    },
  ],
  reviewItems: [{ workItemId: "call-order", sideEffectId: "se-1", kind: "approve_compensation", status: "open", deadline: DEADLINE }],
  resources: [],
} as unknown as TaskDetail;

const ORDER = "took effect: order ord_123 went through; a person decides by 17:09 UTC whether to reverse it";
const EXPORT = "stopped; 1,425 rows kept (partial)";

describe("repairWithTask — UI messages", () => {
  it("calls left without results get the ledger's words; a call done before the Stop keeps its own; a call the ledger never saw is 'not started'; a stripped call is added back", () => {
    const ui = [
      { id: "u", role: "user", parts: [{ type: "text", text: "order a lamp and export" }] },
      {
        id: "a",
        role: "assistant",
        parts: [
          { type: "tool-checkStock", toolCallId: "call-stock", state: "output-available", input: {}, output: { chairs: 4 } },
          { type: "tool-createOrder", toolCallId: "call-order", state: "input-available", input: { sku: "lamp" } },
          { type: "dynamic-tool", toolName: "other", toolCallId: "call-unknown", state: "input-streaming", input: undefined },
        ],
      },
    ];
    const [user, assistant] = repairWithTask(ui, task, Date.parse(STOP) + 10_000);
    expect(user).toBe(ui[0]);
    expect(assistant.parts).toEqual([
      ui[1].parts[0],
      { type: "tool-createOrder", toolCallId: "call-order", state: "output-available", input: { sku: "lamp" }, output: ORDER },
      { type: "dynamic-tool", toolName: "other", toolCallId: "call-unknown", state: "output-available", input: {}, output: NO_RECORD },
      { type: "tool-exportReport", toolCallId: "call-export", state: "output-available", input: {}, output: EXPORT }, // stripped by the runtime: back
    ]);
  });
});

describe("repairWithTask — model messages", () => {
  it("a result is added after the call, an 'aborted' result is replaced, a stripped call is added back, earlier results stay", () => {
    const model = [
      { role: "user", content: "order a lamp and export" },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "call-stock", toolName: "checkStock", input: {} }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "call-stock", toolName: "checkStock", output: { type: "json", value: { chairs: 4 } } }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Ordering." },
          { type: "tool-call", toolCallId: "call-order", toolName: "createOrder", input: { sku: "lamp" } },
        ],
      },
      { role: "user", content: "stop!" },
    ];
    const out = repairWithTask(model, task, Date.parse(STOP) + 10_000);
    expect(out).toEqual([
      model[0],
      model[1],
      model[2],
      model[3],
      { role: "tool", content: [{ type: "tool-result", toolCallId: "call-order", toolName: "createOrder", output: { type: "text", value: ORDER } }] },
      model[4],
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "call-export", toolName: "exportReport", input: {} }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "call-export", toolName: "exportReport", output: { type: "text", value: EXPORT } }] },
    ]);

    const aborted = [
      model[3],
      { role: "tool", content: [{ type: "tool-result", toolCallId: "call-order", toolName: "createOrder", output: { type: "error-text", value: "aborted" } }] },
    ];
    expect(repairWithTask(aborted, task).slice(0, 2)).toEqual([
      model[3],
      { role: "tool", content: [{ type: "tool-result", toolCallId: "call-order", toolName: "createOrder", output: { type: "text", value: ORDER } }] },
    ]);
  });

  it("a task nobody stopped: nothing changes", () => {
    const unstopped = {
      ...task,
      cancelRequestedAt: null,
      settledAt: null,
      workItems: [task.workItems[0]],
      sideEffects: [],
      reviewItems: [],
    } as unknown as TaskDetail;
    const model = [{ role: "assistant", content: [{ type: "tool-call", toolCallId: "call-x", toolName: "x", input: {} }] }];
    expect(repairWithTask(model, unstopped)).toEqual(model);
  });
});
