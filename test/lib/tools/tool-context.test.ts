import { afterEach, describe, expect, it, vi } from "vitest";
import { PROGRESS_INTERVAL_MS, runningCall, type ToolContextTransport } from "../../../lib/tools/tool-context";

const call = { workItemId: "wi_1", taskId: "t_1", toolCallId: "call-1", idempotencyKey: "key-1", traceparent: "00-abc-def-01" };

function recordingTransport(overrides: Partial<ToolContextTransport> = {}) {
  const calls: [string, ...unknown[]][] = [];
  const transport: ToolContextTransport = {
    checkpoint: async () => void calls.push(["checkpoint"]),
    submitted: async (operationId, details) => void calls.push(["submitted", operationId, details]),
    holdResource: async (type, handle) => {
      calls.push(["hold", type, handle]);
      return { id: "res_1" };
    },
    releaseResource: async (type, handle) => void calls.push(["release", type, handle]),
    reportPartial: async (result, complete) => void calls.push(["partial", result, complete]),
    reportProgress: async (p) => void calls.push(["progress", p.done]),
    ...overrides,
  };
  return { calls, transport };
}

afterEach(() => vi.useRealTimers());

describe("the running call's context — one for the in-process worker, the SDK worker and the AI SDK wrapper", () => {
  it("records each thing the running code says through its runner's transport, and keeps the facts the run-ending rule reads", async () => {
    const { calls, transport } = recordingTransport();
    const { ctx, facts } = runningCall(call, new AbortController().signal, transport);
    expect(ctx).toMatchObject({ workItemId: "wi_1", taskId: "t_1", toolCallId: "call-1", idempotencyKey: "key-1", traceparent: "00-abc-def-01" });
    expect(facts).toEqual({ submitted: null, checkpointPassed: false, partial: null });
    await ctx.checkpoint();
    await ctx.submitted("op-1", { externalRecordId: "rec-1" });
    expect(await ctx.holdResource("lock", "exp_1")).toEqual({ id: "res_1", workItemId: "wi_1", type: "lock", handle: "exp_1" });
    await ctx.reportPartial({ rows: 3 }, { complete: true });
    expect(facts).toEqual({
      submitted: { operationId: "op-1", externalRecordId: "rec-1" },
      checkpointPassed: true,
      partial: { result: { rows: 3 }, complete: true },
    });
    expect(calls.map((c) => c[0])).toEqual(["checkpoint", "submitted", "hold", "partial"]);
  });

  it("a checkpoint after the Stop throws the signal's reason and sends nothing; a refused checkpoint does not count as passed", async () => {
    const stop = new AbortController();
    const { calls, transport } = recordingTransport();
    const stopped = runningCall(call, stop.signal, transport);
    stop.abort(new Error("the task's cancellation was recorded"));
    await expect(stopped.ctx.checkpoint()).rejects.toThrow("cancellation was recorded");
    expect(calls).toEqual([]);
    const refused = runningCall(
      call,
      new AbortController().signal,
      recordingTransport({ checkpoint: () => Promise.reject(new Error("cancel_requested")) }).transport,
    );
    await expect(refused.ctx.checkpoint()).rejects.toThrow("cancel_requested");
    expect(refused.facts.checkpointPassed).toBe(false);
  });

  it("a submission whose recording fails still counts as accepted: the service may have it (uncertain, never failed)", async () => {
    const { ctx, facts } = runningCall(call, new AbortController().signal, recordingTransport({ submitted: () => Promise.reject(new Error("503")) }).transport);
    await expect(ctx.submitted("op-2")).rejects.toThrow("503");
    expect(facts.submitted).toEqual({ operationId: "op-2" });
  });

  it("coalesces progress (at most one report per interval, the latest wins) and drops what is pending after the Stop or at the end", async () => {
    vi.useFakeTimers();
    const stop = new AbortController();
    const { calls, transport } = recordingTransport();
    const running = runningCall(call, stop.signal, transport);
    await running.ctx.reportProgress({ done: 1 });
    await running.ctx.reportProgress({ done: 2 });
    await running.ctx.reportProgress({ done: 3 });
    expect(calls).toEqual([["progress", 1]]);
    await vi.advanceTimersByTimeAsync(PROGRESS_INTERVAL_MS);
    expect(calls).toEqual([
      ["progress", 1],
      ["progress", 3],
    ]);
    await running.ctx.reportProgress({ done: 4 });
    stop.abort(new Error("stop"));
    await vi.advanceTimersByTimeAsync(PROGRESS_INTERVAL_MS);
    await running.ctx.reportProgress({ done: 5 });
    expect(calls).toEqual([
      ["progress", 1],
      ["progress", 3],
    ]);
    running.dispose();
  });
});
