import { simulateReadableStream } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import type { ToolContext } from "../../../lib/tools/contract";
import { agentModelFromEnvironment, modelReplyTool } from "../../../lib/agent/model-reply";

const words = ["I ", "can ", "order ", "two ", "chairs ", "for ", "you; ", "please ", "confirm."];
const streamingModel = (chunkDelayInMs: number) =>
  new MockLanguageModelV3({
    doStream: async () => ({
      stream: simulateReadableStream({
        chunkDelayInMs,
        chunks: [
          { type: "stream-start", warnings: [] },
          { type: "text-start", id: "t" },
          ...words.map((delta) => ({ type: "text-delta" as const, id: "t", delta })),
          { type: "text-end", id: "t" },
          {
            type: "finish",
            finishReason: { unified: "stop", raw: "stop" },
            usage: { inputTokens: { total: 5, noCache: 5, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 9, text: 9, reasoning: 0 } },
          },
        ] as never,
      }),
    }),
  });

function context(signal: AbortSignal) {
  const partials: { result: unknown; complete: boolean }[] = [];
  const ctx = {
    signal,
    idempotencyKey: "k",
    workItemId: "w",
    taskId: "t",
    toolCallId: "c",
    checkpoint: async () => {},
    submitted: async () => {},
    holdResource: async () => ({ id: "r", workItemId: "w", type: "x", handle: "y" }),
    releaseResource: async () => {},
    reportPartial: async (result: unknown, { complete }: { complete: boolean }) => void partials.push({ result, complete }),
    reportProgress: async () => {},
  } satisfies ToolContext;
  return { ctx, partials };
}

describe("the demo agent's optional real model", () => {
  it("streams the whole reply when nobody stops it", async () => {
    const model = streamingModel(0);
    const { ctx } = context(new AbortController().signal);
    await expect(modelReplyTool(model).run({ prompt: "order two chairs" }, ctx)).resolves.toEqual({ text: words.join("").trim() });
    expect(JSON.stringify(model.doStreamCalls[0].prompt)).toContain("order two chairs");
  });

  it("Stop reaches the model call: its abortSignal fires, the half reply is reported discarded, nothing is returned", async () => {
    // The model sends five words and then stalls, as a slow model does; Stop comes while it stalls. Driven by the
    // stream, not by a clock: under load a 100 ms timer could fire before the first word arrived.
    const controller = new AbortController();
    const chunks: unknown[] = [
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "t" },
      ...words.slice(0, 5).map((delta) => ({ type: "text-delta", id: "t", delta })),
    ];
    const model = new MockLanguageModelV3({
      doStream: async () => ({
        stream: new ReadableStream({
          pull(stream) {
            const next = chunks.shift();
            if (next) return void stream.enqueue(next);
            setTimeout(() => controller.abort(new Error("the task's cancellation was recorded")), 20);
            // Stalls until the Stop; then the connection ends, as a real provider's fetch does on its abortSignal.
            return new Promise<void>((resolve) => controller.signal.addEventListener("abort", () => resolve(stream.error(controller.signal.reason))));
          },
        }) as never,
      }),
    });
    const { ctx, partials } = context(controller.signal);
    const running = modelReplyTool(model).run({ prompt: "order two chairs" }, ctx);
    await expect(running).rejects.toThrow(/cancellation was recorded/);
    expect(model.doStreamCalls[0].abortSignal?.aborted).toBe(true);
    expect(partials).toHaveLength(1);
    expect(partials[0].complete).toBe(false);
    expect((partials[0].result as { text: string }).text.length).toBeGreaterThan(0);
    expect((partials[0].result as { text: string }).text.length).toBeLessThan(words.join("").length);
  });

  it("is configured by environment for any OpenAI-compatible endpoint, off by default", () => {
    expect(agentModelFromEnvironment({})).toBeNull();
    const model = agentModelFromEnvironment({ STOPLINE_AGENT_MODEL: "llama3.2", STOPLINE_AGENT_BASE_URL: "http://127.0.0.1:11434/v1" });
    expect(model?.modelId).toBe("llama3.2");
  });
});
