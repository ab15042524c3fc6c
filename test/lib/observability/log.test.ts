import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { startJsonLogs } from "../../../lib/observability/log";
import { toolCallSpan } from "../../../lib/observability/ids";
import { inToolCall } from "../../../lib/observability/tracing";

const original = { log: console.log, info: console.info, warn: console.warn, error: console.error, debug: console.debug };
afterEach(() => {
  Object.assign(console, original);
  delete process.env.STOPLINE_LOG_FORMAT;
  delete (globalThis as { stoplineLog?: unknown }).stoplineLog;
});

function capture() {
  const out = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  out.on("data", (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line));
  });
  return { out, lines };
}

describe("STOPLINE_LOG_FORMAT=json", () => {
  it("every console line is one JSON object; inside a tool call it names the task, the work item and the trace", async () => {
    process.env.STOPLINE_LOG_FORMAT = "json";
    const { out, lines } = capture();
    expect(await startJsonLogs({ destination: out, name: "test" })).toBe(true);
    console.log("[stopline] serving on %s", "http://127.0.0.1:3000");
    const item = { id: "w7", taskId: "t7", attempt: 1 };
    await inToolCall(item, async () => {
      await Promise.resolve();
      console.error("export failed", new Error("disk full"));
    });
    await new Promise((r) => setImmediate(r));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ level: "info", msg: "[stopline] serving on http://127.0.0.1:3000", name: "test" });
    expect(lines[0]).not.toHaveProperty("task_id");
    expect(typeof lines[0].time).toBe("string");
    expect(lines[1]).toMatchObject({
      level: "error",
      msg: "export failed disk full",
      task_id: "t7",
      work_item_id: "w7",
      trace_id: toolCallSpan(item).traceId,
      span_id: toolCallSpan(item).spanId,
      err: { type: "Error", message: "disk full" },
    });
  });

  it("unset (or text): the console is left as it is", async () => {
    expect(await startJsonLogs()).toBe(false);
    expect(console.log).toBe(original.log);
  });
});
