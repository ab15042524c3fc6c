import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { streamText, type LanguageModel, type ModelMessage } from "ai";
import { z } from "zod";
import type { ToolDefinition } from "../tools/contract";

/**
 * The demo agent's reply from a real model (optional): any OpenAI-compatible endpoint through the AI SDK,
 * e.g. a local Ollama. The run's AbortSignal is the model call's abortSignal, so Stop ends the generation
 * at the provider; a half-written reply is discarded (reported, never kept as an answer).
 */
export const MODEL_REPLY_TOOL = "model.generate";
export type ReplyModel = Exclude<LanguageModel, string>;

export function agentModelFromEnvironment(env: Readonly<Record<string, string | undefined>> = process.env): ReplyModel | null {
  const modelId = env.STOPLINE_AGENT_MODEL?.trim();
  if (!modelId) return null;
  return createOpenAICompatible({
    name: "stopline-agent",
    baseURL: env.STOPLINE_AGENT_BASE_URL?.trim() || "http://localhost:11434/v1",
    apiKey: env.STOPLINE_AGENT_API_KEY?.trim() || undefined,
  }).chatModel(modelId);
}

const SYSTEM =
  "You are the assistant of a small shop. You are given what the application will do next. Tell the person exactly that, in at most two sentences, and promise nothing else.";

export function modelReplyTool(model: ReplyModel): ToolDefinition<{ prompt: string; messages?: unknown[] }> {
  return {
    name: MODEL_REPLY_TOOL,
    kind: "model_request",
    risk: "low",
    commitsEffect: false,
    mechanism: "abort_signal",
    // `messages`: the conversation so far (lib/transcript), each stopped call's result as the ledger records it.
    input: z.object({ prompt: z.string().min(1), messages: z.array(z.any()).optional() }).loose(),
    async run(input, ctx) {
      let text = "";
      let failure: unknown = null;
      const result = streamText({
        model,
        ...(input.messages?.length
          ? {
              system: `${SYSTEM} The conversation so far is given; each tool result in it is what Stopline's ledger records about that call — the truth, also where a call was stopped: never assume a stopped call did nothing, nor that it went through, beyond what its result says.\n\nWhat the application will do next: ${input.prompt}`,
              messages: input.messages as ModelMessage[],
            }
          : { system: SYSTEM, prompt: input.prompt }),
        abortSignal: ctx.signal,
        maxRetries: 0,
        onError: ({ error }) => {
          failure = error;
        },
      });
      try {
        for await (const chunk of result.textStream) text += chunk;
      } catch (error) {
        failure ??= error;
      }
      if (ctx.signal.aborted || failure) {
        if (ctx.signal.aborted && text) await ctx.reportPartial({ text }, { complete: false }); // half a reply is not an answer
        throw ctx.signal.aborted ? ctx.signal.reason : failure;
      }
      return { text: text.trim() };
    },
  };
}
