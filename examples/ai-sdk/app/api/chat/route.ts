/**
 * The example Next.js route (copy it to app/api/chat/route.ts of your app): an AI SDK agent whose tool calls and
 * generations are Stopline work items. Environment: STOPLINE_URL, STOPLINE_TOKEN (admin, or agent +
 * STOPLINE_WORKER_TOKEN), STOPLINE_DEMO_URL (the demo services), STOPLINE_AGENT_MODEL / STOPLINE_AGENT_BASE_URL /
 * STOPLINE_AGENT_API_KEY (any OpenAI-compatible endpoint).
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { StoplineClient } from "../../../../../lib/sdk";
import { createChatHandler } from "../../../agent";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const baseUrl = process.env.STOPLINE_URL ?? "http://localhost:3000";
const client = new StoplineClient({ baseUrl, token: process.env.STOPLINE_TOKEN ?? "" });
const worker = process.env.STOPLINE_WORKER_TOKEN ? new StoplineClient({ baseUrl, token: process.env.STOPLINE_WORKER_TOKEN }) : undefined;
const model = createOpenAICompatible({
  name: "agent",
  baseURL: process.env.STOPLINE_AGENT_BASE_URL ?? "http://localhost:11434/v1",
  apiKey: process.env.STOPLINE_AGENT_API_KEY,
}).chatModel(process.env.STOPLINE_AGENT_MODEL ?? "llama3.2");

export const POST = createChatHandler({ client, worker, model, demoUrl: process.env.STOPLINE_DEMO_URL ?? "http://127.0.0.1:3001" });
