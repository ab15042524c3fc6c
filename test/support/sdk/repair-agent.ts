/**
 * An AI SDK agent stopped mid-tool, then asked about it — run as a process of its own with whichever `ai` resolves:
 * AI SDK 6 on Node 20 (`node --import tsx repair-agent.ts`), AI SDK 7 on Node 22 (`--import ./ai-versions.mjs`).
 * test/lib/sdk/ai-repair.int.test.ts presses Stop while the export runs. Prints JSON lines:
 *   {event:"task"}                        the task exists (the test watches the export and presses Stop)
 *   {event:"stopped", ui}                 the loop ended; the UI message as the AI SDK left it
 *   {event:"repaired", ui, model, fromModel, prompt}  after repairToolResults: the UI message, its model messages
 *                                         (convertToModelMessages), the model messages repaired directly, and the
 *                                         prompt the next turn's model received for "did my export finish?"
 * Environment: STOPLINE_URL, STOPLINE_TOKEN, STOPLINE_DEMO_URL.
 */
import { createRequire } from "node:module";
import { convertToModelMessages, readUIMessageStream, stepCountIs, streamText, tool } from "ai";
import { z } from "zod";
import { StoplineClient } from "../../../lib/sdk/index";
import { createStopline, repairToolResults, stoplineContext, type StopContract } from "../../../lib/sdk/ai";

const test = (await import("ai/test")) as unknown as Record<string, new (options: Record<string, unknown>) => { doStreamCalls: { prompt: unknown }[] }>;
const Mock = test.MockLanguageModelV4 ?? test.MockLanguageModelV3; // ai 7 : ai 6
const say = (event: string, data: Record<string, unknown> = {}) => process.stdout.write(`${JSON.stringify({ event, ...data })}\n`);
const aiVersion = (createRequire(import.meta.resolve("ai")) as NodeJS.Require)("../package.json").version as string;

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
function step(part: { toolCallId: string; toolName: string; input: unknown } | { text: string }) {
  const parts: unknown[] = [{ type: "stream-start", warnings: [] }];
  if ("text" in part) parts.push({ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: part.text }, { type: "text-end", id: "t" });
  else parts.push({ type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, input: JSON.stringify(part.input) });
  parts.push({ type: "finish", finishReason: { unified: "text" in part ? "stop" : "tool-calls", raw: undefined }, usage });
  return {
    stream: new ReadableStream({
      start(c) {
        for (const p of parts) c.enqueue(p);
        c.close();
      },
    }),
  };
}

const base = process.env.STOPLINE_DEMO_URL!.replace(/\/$/, "");
type Export = { exportId: string; status: string; rowsWritten: number; rowsTotal: number };
const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body ? { "content-type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw Object.assign(new Error(`${method} ${path} → ${res.status}`), { status: res.status });
  return (await res.json()) as T;
};
const byKey = (key: string) =>
  call<Export>("GET", `/reports/exports?idempotencyKey=${encodeURIComponent(key)}`).catch((e: { status?: number }) =>
    e.status === 404 ? null : Promise.reject(e),
  );

const exportReport = tool({
  description: "Export a report of N rows (slow)",
  inputSchema: z.object({ rows: z.number().int(), rowMs: z.number().int().optional() }),
  execute: async ({ rows, rowMs }, options) => {
    const ctx = stoplineContext(options)!;
    const started = await call<Export>("POST", "/reports/exports", { idempotencyKey: ctx.idempotencyKey, rows, rowMs });
    await ctx.submitted(started.exportId, { description: `report export ${started.exportId} (${rows} rows)` });
    for (;;) {
      if (options.abortSignal?.aborted) throw options.abortSignal.reason;
      const current = await call<Export>("GET", `/reports/exports/${started.exportId}`);
      if (current.status === "completed") return { exportId: current.exportId, rows: current.rowsTotal };
      await new Promise((r) => setTimeout(r, 50));
    }
  },
});
const exportStop: StopContract = {
  mechanism: "provider_cancel",
  async cancel(ref) {
    const found = await byKey(ref.idempotencyKey);
    if (found) await call("POST", `/reports/exports/${found.exportId}/cancel`);
  },
  async inspect(ref) {
    const found = await byKey(ref.idempotencyKey);
    if (!found) return { status: "not_committed" };
    if (found.status === "running") return { status: "running" };
    if (found.status === "completed") return { status: "committed", result: { exportId: found.exportId, rows: found.rowsTotal } };
    return { status: "not_committed", partialResult: { exportId: found.exportId, rowsWritten: found.rowsWritten }, partialComplete: true };
  },
};

const client = new StoplineClient({ retry: { baseDelayMs: 20, maxDelayMs: 200 } });
const stopline = createStopline({ client, host: false });
const task = await stopline.startTask({ title: "export a report of 2000 rows" });
say("task", { taskId: task.id, ai: aiVersion, node: process.version });

const model = new Mock({
  provider: "mock",
  modelId: "repair",
  doStream: async () => step({ toolCallId: "call-export", toolName: "exportReport", input: { rows: 2_000, rowMs: 5 } }),
});
const result = streamText({
  model: stopline.wrapModel(task, model as never),
  tools: stopline.wrapTools(task, { exportReport: { tool: exportReport, stop: exportStop } }),
  abortSignal: task.signal,
  stopWhen: stepCountIs(3),
  messages: [{ role: "user", content: "export a report of 2000 rows" }],
});
const user = { id: "u1", role: "user" as const, parts: [{ type: "text" as const, text: "export a report of 2000 rows" }] };
let assistant: unknown = null;
try {
  for await (const message of readUIMessageStream({ stream: result.toUIMessageStream() })) assistant = message;
} catch {
  /* the loop was aborted by the Stop */
}
task.close();
const stopped = [user, assistant] as never[];
say("stopped", { ui: stopped });

// The next turn: the history repaired from the ledger (waiting for the Stop to settle), then the model is asked.
const ui = await repairToolResults(stopped, { client, taskId: task.id, waitMs: 20_000 });
const modelMessages = await convertToModelMessages(ui as never);
const fromModel = await repairToolResults((await convertToModelMessages(stopped as never)) as never[], { client, taskId: task.id });
const next = new Mock({ provider: "mock", modelId: "next", doStream: async () => step({ text: "It stopped partway." }) });
const answer = streamText({ model: next as never, messages: [...(modelMessages as never[]), { role: "user", content: "did my export finish?" }] });
await answer.text;
say("repaired", { ui, model: modelMessages, fromModel, prompt: next.doStreamCalls[0]?.prompt ?? null });
await stopline.close();
