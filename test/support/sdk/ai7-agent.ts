/**
 * The example AI SDK agent (examples/ai-sdk/agent.ts) run on Node 22 with AI SDK 7 — a process of its own, as an
 * agent outside the app runs: `node22 --import tsx --import ./ai-versions.mjs ai7-agent.ts`. The model is AI SDK 7's
 * MockLanguageModelV4 (a tool call of checkStock, one of exportReport, then text); the Stop comes from outside
 * (test/lib/sdk/ai7.int.test.ts presses it while the export runs). Prints JSON lines: {event:"task"}, {event:"done"}.
 * Environment: STOPLINE_URL, STOPLINE_TOKEN, STOPLINE_DEMO_URL.
 */
import { createRequire } from "node:module";
import { createChatHandler } from "../../../examples/ai-sdk/agent";
import { StoplineClient } from "../../../lib/sdk/index";

// ai 7's mock model (the app's own types are ai 6's, which has no V4).
const { MockLanguageModelV4 } = (await import("ai/test")) as unknown as {
  MockLanguageModelV4: new (options: Record<string, unknown>) => { specificationVersion: string; doStreamCalls: unknown[] };
};
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

const steps = [
  step({ toolCallId: "call-stock", toolName: "checkStock", input: { sku: "chair" } }),
  step({ toolCallId: "call-export", toolName: "exportReport", input: { rows: 2_000, rowMs: 5 } }),
  step({ text: "Here is your report." }),
];
const model = new MockLanguageModelV4({ provider: "mock", modelId: "agent7", doStream: async () => steps.shift()! as never });
const client = new StoplineClient({ retry: { baseDelayMs: 20, maxDelayMs: 200 } });
const POST = createChatHandler({ client, model: model as never, demoUrl: process.env.STOPLINE_DEMO_URL! });

const response = await POST(
  new Request("http://app/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message: "export a report of 2000 rows" }),
  }),
);
say("task", {
  taskId: response.headers.get("x-stopline-task"),
  status: response.status,
  node: process.version,
  ai: aiVersion,
  spec: model.specificationVersion,
});
let text = "";
for await (const chunk of response.body!.pipeThrough(new TextDecoderStream())) text += chunk;
say("done", { doStreamCalls: model.doStreamCalls.length, text: text.slice(0, 2_000) });
