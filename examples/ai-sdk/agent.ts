/**
 * An agent written with the Vercel AI SDK, made stoppable by Stopline in one line per part: the model
 * (`stopline.wrapModel`), the tools with their stop contracts (`stopline.wrapTools`) and the loop's abortSignal
 * (`task.signal`). Its tools call the demo services that `npm start` runs (shop and reports, at PORT+1):
 *
 * - `checkStock` — a read (abort_signal: the fetch is aborted);
 * - `exportReport` — a long export (provider_cancel: the reports service's cancel endpoint; inspect asks the
 *   service by idempotency key, so a Stop is reported only as far as the service confirms it).
 *
 * `createChatHandler()` is the body of the example Next.js route (app/api/chat/route.ts): POST {message} →
 * a streamed reply, with the task id in the `X-Stopline-Task` header — the chat's Stop button calls
 * `POST /api/tasks/{id}/cancel`, and `GET /api/tasks/{id}/cancellation` is the honest summary.
 */
import { stepCountIs, streamText, tool, type LanguageModel } from "ai";
import { z } from "zod";
import type { StoplineClient } from "../../lib/sdk";
import { createStopline, stoplineContext, type StopContract } from "../../lib/sdk/ai";

export interface ChatHandlerOptions {
  /** Stopline (an admin token; or an agent token here and a worker token in `worker`). */
  client: StoplineClient;
  worker?: StoplineClient;
  model: Exclude<LanguageModel, string>;
  /** Where the demo services run (npm start: http://127.0.0.1:$((PORT+1))). */
  demoUrl: string;
  maxSteps?: number;
}

type Export = { exportId: string; status: "running" | "completed" | "cancelled"; rowsWritten: number; rowsTotal: number; rows?: unknown[] };

export function createChatHandler(options: ChatHandlerOptions) {
  const stopline = createStopline({ client: options.client, worker: options.worker });
  const base = options.demoUrl.replace(/\/$/, "");
  const call = async <T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: body ? { "content-type": "application/json" } : {},
      body: body ? JSON.stringify(body) : undefined,
      signal,
    });
    const json = await res.json();
    if (!res.ok) throw Object.assign(new Error(`${method} ${path} → ${res.status}: ${json.error ?? ""}`), { status: res.status });
    return json as T;
  };
  const exportByKey = async (key: string) => {
    try {
      return await call<Export>("GET", `/reports/exports?idempotencyKey=${encodeURIComponent(key)}`);
    } catch (error) {
      if ((error as { status?: number }).status === 404) return null;
      throw error;
    }
  };

  const checkStock = tool({
    description: "Stock and prices of the shop",
    inputSchema: z.object({ sku: z.string().optional() }),
    execute: async ({ sku }, { abortSignal }) => call("GET", `/shop/stock${sku ? `?sku=${encodeURIComponent(sku)}` : ""}`, undefined, abortSignal),
  });
  const exportReport = tool({
    description: "Export a report of N rows (slow)",
    inputSchema: z.object({ rows: z.number().int().min(1).max(100_000), rowMs: z.number().int().min(1).optional() }),
    execute: async ({ rows, rowMs }, options) => {
      const ctx = stoplineContext(options)!;
      const started = await call<Export>("POST", "/reports/exports", { idempotencyKey: ctx.idempotencyKey, rows, rowMs });
      await ctx.submitted(started.exportId, { description: `report export ${started.exportId} (${rows} rows)` });
      for (;;) {
        if (options.abortSignal?.aborted) throw options.abortSignal.reason; // the stop contract takes it from here
        const current = await call<Export>("GET", `/reports/exports/${started.exportId}`);
        if (current.status === "completed") return { exportId: current.exportId, rows: current.rowsTotal };
        await ctx.reportProgress({ done: current.rowsWritten, total: current.rowsTotal, unit: "rows" });
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  });
  const exportStop: StopContract = {
    mechanism: "provider_cancel",
    async cancel(ref) {
      const found = await exportByKey(ref.idempotencyKey);
      if (found) await call("POST", `/reports/exports/${found.exportId}/cancel`);
    },
    async inspect(ref) {
      const found = await exportByKey(ref.idempotencyKey);
      if (!found) return { status: "not_committed" };
      if (found.status === "running") return { status: "running" };
      if (found.status === "completed") return { status: "committed", result: { exportId: found.exportId, rows: found.rowsTotal } };
      return { status: "not_committed", partialResult: { exportId: found.exportId, rowsWritten: found.rowsWritten }, partialComplete: true };
    },
  };

  // biome-ignore lint/correctness/noComponentHookFactories: a Next.js route handler, named as Next.js requires, not a component
  return async function POST(request: Request): Promise<Response> {
    const body = (await request.json().catch(() => null)) as { message?: unknown; conversationId?: unknown } | null;
    if (!body || typeof body.message !== "string" || !body.message.trim()) {
      return Response.json({ error: { code: "bad_request", message: "message (a non-empty string) is required", field: "message" } }, { status: 400 });
    }
    const task = await stopline.startTask({
      title: body.message.slice(0, 200),
      ...(typeof body.conversationId === "string" ? { conversationId: body.conversationId } : {}),
    });
    const result = streamText({
      model: stopline.wrapModel(task, options.model),
      tools: stopline.wrapTools(task, {
        checkStock: { tool: checkStock, stop: { mechanism: "abort_signal" } },
        exportReport: { tool: exportReport, stop: exportStop },
      }),
      abortSignal: task.signal,
      stopWhen: stepCountIs(options.maxSteps ?? 5),
      prompt: body.message,
      onFinish: () => task.close(),
      onAbort: () => task.close(),
      onError: () => task.close(),
    });
    return result.toTextStreamResponse({ headers: { "X-Stopline-Task": task.id } });
  };
}
