import { describe, expect, it } from "vitest";
import { judgeRace, McpRace, McpVerdict } from "../../../../lib/conformance/mcp/judge";

describe("judgeRace (MCP cancellation pack)", () => {
  const effect = { kind: "effect", how: "inspect tool order_status says it took effect" } as const;
  const none = { kind: "none", how: "inspect tool order_status says it did not take effect" } as const;

  it('"cancelled" (or an error) while the witness shows the effect, or the work still running, is a lie', () => {
    expect(judgeRace(McpRace.midCall, { kind: "cancelled", text: "Order cancelled." }, effect, "2025-11-25").verdict).toBe(McpVerdict.lies);
    expect(judgeRace(McpRace.tasksCancel, { kind: "cancelled", text: "task cancelled" }, { kind: "running", how: "still running" }, "2026-07-28").verdict).toBe(
      McpVerdict.lies,
    );
    expect(judgeRace(McpRace.midCall, { kind: "error", text: "failed" }, effect, "2025-11-25").verdict).toBe(McpVerdict.lies);
  });

  it("a result while the witness shows no effect is a lie", () => {
    expect(judgeRace(McpRace.afterResult, { kind: "result", text: "order placed" }, none, "2025-11-25").verdict).toBe(McpVerdict.lies);
  });

  it("stopped is honoured, carried on is ignored (said so), and nobody knowing is unverified — silence is no stop", () => {
    expect(judgeRace(McpRace.midCall, { kind: "silence" }, none, "2026-07-28").verdict).toBe(McpVerdict.honours);
    expect(judgeRace(McpRace.midCall, { kind: "silence" }, effect, "2025-11-25").verdict).toBe(McpVerdict.ignores);
    expect(judgeRace(McpRace.midCall, { kind: "result", text: "done" }, effect, "2025-11-25").verdict).toBe(McpVerdict.ignores);
    expect(judgeRace(McpRace.midCall, { kind: "silence" }, { kind: "unknown", how: "no witness" }, "2025-11-25").verdict).toBe(McpVerdict.unverified);
  });

  it("after the result, the result standing is the honoured behaviour", () => {
    expect(judgeRace(McpRace.afterResult, { kind: "result", text: "done" }, effect, "2025-11-25").verdict).toBe(McpVerdict.honours);
  });

  it("a dropped stream on 2025-11-25 is not a cancel: stopping on it is flagged, carrying on is what the revision asks", () => {
    expect(judgeRace(McpRace.streamClosed, { kind: "silence" }, none, "2025-11-25").finding).toMatch(/SHOULD NOT/);
    expect(judgeRace(McpRace.streamClosed, { kind: "silence" }, effect, "2025-11-25").finding).toMatch(/as 2025-11-25 asks/);
    expect(judgeRace(McpRace.streamClosed, { kind: "silence" }, none, "2026-07-28").finding).not.toMatch(/SHOULD NOT/);
  });
});

describe("the pack's command-line pieces", async () => {
  const { argumentsFor, parseInspectOption } = await import("../../../../lib/conformance/mcp/run-mcp-conformance");
  it("--inspect tool=inspectTool@key and tool=resource:<uri>", () => {
    expect(parseInspectOption("place_order=order_status@orderKey")).toEqual([
      "place_order",
      { tool: "order_status", arguments: { orderKey: "{idempotencyKey}" }, idempotencyKeyArgument: "orderKey" },
    ]);
    expect(parseInspectOption("draft=resource:orders://{idempotencyKey}@key")).toEqual([
      "draft",
      { resource: "orders://{idempotencyKey}", idempotencyKeyArgument: "key" },
    ]);
    expect(parseInspectOption("draft=resource:orders://{arguments.id}")).toEqual(["draft", { resource: "orders://{arguments.id}" }]);
    expect(() => parseInspectOption("nothing")).toThrow(/expected tool=/);
  });
  it("arguments from the input schema: defaults, enums, plain values of each type; optional properties left out", () => {
    expect(
      argumentsFor({
        inputSchema: {
          type: "object",
          properties: {
            a: { type: "number", default: 3 },
            b: { type: "string", enum: ["x", "y"] },
            c: { type: "integer", minimum: 5 },
            d: { type: "string" },
            e: { type: "boolean" },
            f: { type: "string" },
          },
          required: ["a", "b", "c", "d", "e"],
        },
      }),
    ).toEqual({ a: 3, b: "x", c: 5, d: "conformance", e: false });
  });
});
