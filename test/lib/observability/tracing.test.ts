import { describe, expect, it } from "vitest";
import { parseTraceparent, stopTrace, taskTrace, toolCallSpan, traceparentOf } from "../../../lib/observability/ids";
import { currentScope, wantScopes } from "../../../lib/observability/scope";
import { inToolCall, startTracing, stopStep, traceHeaders, traceMeta, tracingEnabled } from "../../../lib/observability/tracing";

describe("trace ids derived from the ledger", () => {
  it("every process names the same trace for the same Stop and the same span for the same call; different ones differ", () => {
    expect(stopTrace({ taskId: "t1" })).toEqual(stopTrace({ taskId: "t1" }));
    expect(stopTrace({ taskId: "t1" }).traceId).not.toBe(stopTrace({ taskId: "t2" }).traceId);
    expect(stopTrace({ workItemId: "w1" }).traceId).not.toBe(stopTrace({ taskId: "w1" }).traceId);
    expect(stopTrace({ taskId: "t1" }).traceId).not.toBe(taskTrace("t1").traceId); // a Stop is its own trace
    const call = toolCallSpan({ taskId: "t1", id: "w1", attempt: 1 });
    expect(call.traceId).toBe(taskTrace("t1").traceId);
    expect(call.spanId).not.toBe(toolCallSpan({ taskId: "t1", id: "w1", attempt: 2 }).spanId); // a retry is another span
    for (const ids of [stopTrace({ taskId: "t1" }), call]) {
      expect(ids.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(ids.spanId).toMatch(/^[0-9a-f]{16}$/);
    }
  });

  it("traceparent: written and read as W3C Trace Context; anything else is not one", () => {
    const ids = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" };
    expect(traceparentOf(ids)).toBe("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    expect(parseTraceparent(traceparentOf(ids, false))).toEqual({ ...ids, sampled: false });
    for (const bad of ["", "garbage", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7"])
      expect(parseTraceparent(bad)).toBeNull();
  });
});

describe("propagation with traces not exported (no OTEL_EXPORTER_OTLP_ENDPOINT)", () => {
  it("without OTEL_EXPORTER_OTLP_ENDPOINT nothing is exported: no exporter, no provider", async () => {
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
    expect(await startTracing()).toBeNull();
    expect(tracingEnabled()).toBe(false);
  });

  it("a tool call enters no scope while nothing reads one (the hot path stays free of AsyncLocalStorage); its ctx.traceparent is what adapters send", async () => {
    const item = { id: "w1", taskId: "t1", attempt: 1 };
    const ctxTraceparent = traceparentOf(toolCallSpan(item), false);
    wantScopes(false);
    await inToolCall(item, async () => {
      expect(currentScope()).toBeUndefined();
      expect(traceHeaders({ accept: "application/json" }, ctxTraceparent)).toEqual({ accept: "application/json", traceparent: ctxTraceparent });
      expect(traceMeta({ "dev.stopline/call": "c1" }, ctxTraceparent)).toEqual({ "dev.stopline/call": "c1", traceparent: ctxTraceparent });
    });
    expect(traceHeaders()).toEqual({});
  });

  it("with scopes read (JSON logs on), a tool call's scope names it and its requests carry its traceparent without help", async () => {
    const item = { id: "w2", taskId: "t2", attempt: 3 };
    wantScopes(true);
    try {
      await inToolCall(item, async () => {
        await Promise.resolve();
        expect(traceHeaders()).toEqual({ traceparent: traceparentOf(toolCallSpan(item), false) });
        expect(currentScope()).toMatchObject({ taskId: "t2", workItemId: "w2", traceId: toolCallSpan(item).traceId });
      });
    } finally {
      wantScopes(false);
    }
  });

  it("a Stop's step runs in the Stop's trace (its logs carry it); an error passes through", async () => {
    const seen = await stopStep({ taskId: "t9" }, "plan", async () => currentScope());
    expect(seen).toMatchObject({ taskId: "t9", traceId: stopTrace({ taskId: "t9" }).traceId });
    await expect(stopStep({ taskId: "t9" }, "child", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
  });
});
