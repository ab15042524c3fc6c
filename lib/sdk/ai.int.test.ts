import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChatHandler } from "../../examples/ai-sdk/agent";
import { startDemoServer, type DemoServer } from "../demo/server";
import { setFaults } from "../demo/faults";
import { witnessLog } from "../demo/store";
import { StoplineClient } from "./index";
import { eventually, sleep, startSdkTestServer, terminal, type SdkTestServer } from "./testing/server";

/**
 * The AI SDK integration (lib/sdk/ai.ts) through the example Next.js route (examples/ai-sdk): a real
 * `streamText` multi-step loop driven by the AI SDK's mock model, its tools calling the real demo services, every
 * generation and tool call a work item on the real API over HTTP (with the cancellation engine running). Stop is
 * pressed through the API while the loop is inside a slow tool; the summary is judged against what the reports
 * service itself recorded (its witness log).
 */

let s: SdkTestServer;
let demo: DemoServer;
let admin: StoplineClient;
beforeAll(async () => {
  [s, demo] = await Promise.all([startSdkTestServer(), startDemoServer({ file: ":memory:" })]);
  admin = new StoplineClient({ baseUrl: s.http.url, token: s.tokens.admin, retry: { baseDelayMs: 20, maxDelayMs: 200 } });
}, 60_000);
afterAll(async () => {
  await demo?.close();
  await s?.close();
});

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
/** One streamed model step: a tool call, or text. */
function step(part: { toolCallId: string; toolName: string; input: unknown } | { text: string }) {
  const parts: unknown[] = [{ type: "stream-start", warnings: [] }];
  if ("text" in part) parts.push({ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: part.text }, { type: "text-end", id: "t" });
  else parts.push({ type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, input: JSON.stringify(part.input) });
  parts.push({ type: "finish", finishReason: { unified: "text" in part ? "stop" : "tool-calls", raw: undefined }, usage });
  return { stream: new ReadableStream({ start(c) { for (const p of parts) c.enqueue(p); c.close(); } }) };
}

describe("AI SDK: a multi-step tool loop, stopped mid-tool", () => {
  it("Stop from the API while exportReport runs: the loop ends, the model is not asked again, the export is cancelled at the service, and the summary matches the service's record", async () => {
    const steps = [
      step({ toolCallId: "call-stock", toolName: "checkStock", input: { sku: "chair" } }),
      step({ toolCallId: "call-export", toolName: "exportReport", input: { rows: 2_000, rowMs: 5 } }),
      step({ text: "Here is your report." }),
    ];
    const model = new MockLanguageModelV3({ provider: "mock", modelId: "agent", doStream: async () => steps.shift()! });
    const POST = createChatHandler({ client: admin, model, demoUrl: demo.url });

    const response = await POST(new Request("http://app/api/chat", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message: "export a report of 2000 rows" }) }));
    expect(response.status).toBe(200);
    const taskId = response.headers.get("x-stopline-task")!;
    expect(taskId).toBeTruthy();
    const reading = (async () => {
      let text = "";
      for await (const chunk of response.body!.pipeThrough(new TextDecoderStream())) text += chunk;
      return text;
    })();

    // mid-tool: the export is running at the service (rows are being written)
    const exportId = await eventually(async () => {
      const started = witnessLog(demo.db, "reports").find((w) => w.action === "export_started");
      if (!started) return undefined;
      const row = (await (await fetch(`${demo.url}/reports/exports/${started.subject}`)).json()) as { rowsWritten: number };
      return row.rowsWritten > 20 ? started.subject! : undefined;
    }, "the export to be writing rows", 15_000, 20);

    const stop = await admin.cancel(taskId, { reason: "the user pressed Stop" });
    expect(stop.kind).toBe("boundary");
    await reading; // the streamed reply ends (the loop was aborted)

    const summary = await eventually(async () => {
      const current = await admin.getCancellation(taskId);
      return current.status === "IN_PROGRESS" ? undefined : current;
    }, "the cancellation to settle", 20_000).catch(async (error: Error) => {
      const d = await admin.getTask(taskId);
      throw new Error(`${error.message}; task ${d.stage}, items ${JSON.stringify(d.workItems.map((w) => [w.toolName, w.status]))}`);
    });

    // what the reports service recorded: the export was cancelled, after N rows — never completed
    const record = witnessLog(demo.db, "reports").filter((w) => w.subject === exportId);
    expect(record.map((w) => w.action)).toContain("export_cancelled");
    expect(record.map((w) => w.action)).not.toContain("export_completed");
    const rowsWritten = (record.find((w) => w.action === "export_cancelled")!.detail as { rowsWritten: number }).rowsWritten;
    expect(rowsWritten).toBeGreaterThan(0);
    expect(rowsWritten).toBeLessThan(2_000);

    // the ledger: two generations (completed), the stock read (completed), the export stopped with the service's prefix
    const detail = await admin.getTask(taskId);
    const byName = (name: string) => detail.workItems.filter((w) => w.toolName === name);
    expect(byName("model:mock:agent").map((w) => [w.kind, w.status])).toEqual([["model_request", "completed"], ["model_request", "completed"]]);
    expect(byName("checkStock").map((w) => [w.correlationId, w.status])).toEqual([["call-stock", "completed"]]);
    const exp = byName("exportReport")[0];
    expect(exp).toMatchObject({ correlationId: "call-export", mechanism: "provider_cancel", status: "partial", operationId: exportId });
    expect(exp.partialResult).toEqual({ exportId, rowsWritten });
    // the model was never asked for a third step after the Stop
    expect(model.doStreamCalls).toHaveLength(2);

    // the summary says exactly that, and nothing more
    expect(summary.status).toBe("CANCELLED");
    expect(summary.cancelled_tool_calls).toEqual([
      expect.objectContaining({ tool_call_id: "call-export", tool_name: "exportReport", cancellation_status: "CANCELLED", partial_result: { marker: "PARTIAL_RESULT", value: { exportId, rowsWritten } } }),
    ]);
    expect(summary.uncertain_tool_calls).toEqual([]);
    expect(summary.orphaned_side_effects).toEqual([]);
  }, 60_000);

  it("'settled' means final: while the tool's own stop contract runs in the agent's process (seconds, against a slow service), the summary stays IN_PROGRESS; its first other answer is the last one", async () => {
    const steps = [
      step({ toolCallId: "call-export-slow", toolName: "exportReport", input: { rows: 2_000, rowMs: 5 } }),
      step({ text: "Here is your report." }),
    ];
    const model = new MockLanguageModelV3({ provider: "mock", modelId: "agent", doStream: async () => steps.shift()! });
    const POST = createChatHandler({ client: admin, model, demoUrl: demo.url });
    const response = await POST(new Request("http://app/api/chat", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message: "export a report of 2000 rows" }) }));
    const taskId = response.headers.get("x-stopline-task")!;
    const reading = (async () => {
      for await (const _ of response.body!.pipeThrough(new TextDecoderStream())) void _;
    })();
    await eventually(async () => (await admin.getTask(taskId)).workItems.find((w) => w.toolName === "exportReport" && w.operationId) ?? undefined, "the export to be submitted", 15_000, 20);

    // Every call to the reports service now takes 700 ms: the wrapper's cancel and inspect take seconds.
    setFaults(demo.db, "reports", { latencyMs: 700 });
    try {
      await admin.cancel(taskId, { reason: "the user pressed Stop" });
      const seen: string[] = [];
      let first: Awaited<ReturnType<typeof admin.getCancellation>> | undefined;
      while (!first) {
        const current = await admin.getCancellation(taskId);
        seen.push(current.status);
        if (current.status !== "IN_PROGRESS") first = current;
        else await sleep(20);
      }
      await reading;
      const final = await eventually(async () => ((await admin.getTask(taskId)).workItems.every((w) => terminal(w.status)) ? admin.getCancellation(taskId) : undefined), "every step to end", 30_000);
      const outcomes = (summary: typeof final) => summary.tool_calls.map((c) => [c.tool_call_id, c.status, c.outcome.kind]);
      expect(final.status).toBe("CANCELLED");
      expect(first.status).toBe(final.status);
      expect(outcomes(first)).toEqual(outcomes(final));
      expect(first.uncertain_tool_calls).toEqual([]);
      expect(seen.filter((x) => x === "IN_PROGRESS").length).toBeGreaterThan(10); // it did wait for the agent's own stop path
      expect(await s.t.database.prisma.reviewItem.count({ where: { taskId } })).toBe(0);
    } finally {
      setFaults(demo.db, "reports", {});
    }
  }, 60_000);

  it("bad input to the example route: 400 naming the field, no task created", async () => {
    const before = (await admin.listTasks({})).tasks.length;
    const model = new MockLanguageModelV3({ provider: "mock", modelId: "agent" });
    const POST = createChatHandler({ client: admin, model, demoUrl: demo.url });
    const response = await POST(new Request("http://app/api/chat", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message: "" }) }));
    expect(response.status).toBe(400);
    expect((await response.json()).error.field).toBe("message");
    expect((await admin.listTasks({})).tasks.length).toBe(before);
  });
});

describe("POST /api/tasks/{taskId}/work-items/start (inline work items)", () => {
  it("schedules and leases in one step; refused after the Stop (nothing starts) and for bad input (nothing written); agent tokens may not run work", async () => {
    const task = await admin.createTask({ title: "inline" });
    const item = await s.worker.startWorkItem(task.id, { kind: "remote_tool", toolName: "inline.tool", mechanism: "abort_signal", intentVersion: task.intentVersion, correlationId: "inline-1", workerId: "me" });
    expect(item).toMatchObject({ status: "running", leaseOwner: "me", correlationId: "inline-1" });
    expect(item.leaseToken).toBeTruthy();
    expect((await s.worker.heartbeat(item.id, { leaseToken: item.leaseToken })).cancelRequested).toBe(false);
    // a pool of another process cannot claim it: it was never queued for anyone else
    expect(await s.worker.claim({ workerId: "other", toolNames: ["inline.tool"] })).toBeNull();

    const bad = await s.worker.startWorkItem(task.id, { kind: "remote_tool", toolName: "inline.tool", mechanism: "abort_signal", intentVersion: task.intentVersion, workerId: "" }).catch((e) => e);
    expect(bad).toMatchObject({ status: 400 });
    const agent = await s.agent.startWorkItem(task.id, { kind: "remote_tool", toolName: "inline.tool", mechanism: "abort_signal", intentVersion: task.intentVersion, workerId: "me" }).catch((e) => e);
    expect(agent).toMatchObject({ status: 403 });

    await admin.cancel(task.id, { reason: "stop" });
    const late = await s.worker.startWorkItem(task.id, { kind: "remote_tool", toolName: "inline.tool", mechanism: "abort_signal", intentVersion: task.intentVersion, workerId: "me" }).catch((e) => e);
    expect(late).toMatchObject({ status: 409, code: "cancel_requested" });
    expect((await admin.getTask(task.id)).workItems.map((w) => w.correlationId)).toEqual(["inline-1"]);
  });
});
