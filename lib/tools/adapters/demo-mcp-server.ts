/**
 * The Stopline demo MCP server (stdio): one tool, `count_slowly {steps, delayMs}`, that counts to `steps`,
 * one step every `delayMs`, sending a progress notification per step, and HONOURS `notifications/cancelled`.
 *
 *   node --import tsx lib/tools/adapters/demo-mcp-server.ts
 *
 * Honouring a cancellation means: it stops counting at once and ANSWERS the cancelled request with a JSON-RPC
 * error (code -32800, "request cancelled", data `{cancelled: true, counted, total}`). The MCP specification
 * says a receiver SHOULD NOT answer a cancelled request, and the SDK's server drops the answer of a cancelled
 * handler; this server sends it anyway, straight through its transport, because that answer is the only
 * evidence a client can observe that the cancellation took effect — Stopline reports a stop only when it
 * has seen one (lib/tools/adapters/mcp.ts).
 *
 * For tests it also behaves like servers that do not honour a cancellation, chosen per call with
 * `onCancel`: `"ignore"` keeps counting and sending progress and never answers (like server-everything's
 * `trigger-long-running-operation`); `"finish"` keeps counting and still answers with the result.
 *
 * Witness log: one JSON line per fact on stderr (`{"witness":"cancel_received",…}`), which tests compare with
 * what Stopline reports.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { pathToFileURL } from "node:url";
import { z } from "zod";

/** The JSON-RPC error code this server answers a cancelled request with (LSP's RequestCancelled). */
export const REQUEST_CANCELLED = -32800;

const witness = (fact: string, detail: Record<string, unknown> = {}) =>
  process.stderr.write(`${JSON.stringify({ witness: fact, at: Date.now(), ...detail })}\n`);

export function createDemoMcpServer(send: (message: unknown) => Promise<void>) {
  const server = new McpServer({ name: "stopline-demo", version: "0.1.0" });
  server.registerTool(
    "count_slowly",
    {
      title: "Count slowly",
      description: "Counts to `steps`, one step every `delayMs` milliseconds, reporting progress. Stops when the request is cancelled.",
      inputSchema: {
        steps: z.number().int().min(1).max(100_000),
        delayMs: z.number().int().min(0).max(60_000),
        onCancel: z.enum(["stop", "ignore", "finish"]).default("stop").describe("test switch: how to treat notifications/cancelled"),
      },
      outputSchema: { counted: z.number().int() },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ steps, delayMs, onCancel }, extra) => {
      const progressToken = extra._meta?.progressToken;
      const requestId = extra.requestId;
      witness("started", { requestId, steps, delayMs, onCancel, traceparent: extra._meta?.traceparent ?? null }); // the caller's trace context
      let cancelledAt: number | null = null;
      extra.signal.addEventListener(
        "abort",
        () => {
          cancelledAt = Date.now();
          witness("cancel_received", { requestId, reason: String(extra.signal.reason ?? "") });
        },
        { once: true },
      );

      let counted = 0;
      while (counted < steps) {
        await delay(delayMs, onCancel === "stop" ? extra.signal : undefined);
        if (extra.signal.aborted && onCancel === "stop") {
          witness("stopped", { requestId, counted, total: steps });
          // The SDK will not send an answer for a cancelled request: send it ourselves (see the header).
          await send({
            jsonrpc: "2.0",
            id: requestId,
            error: {
              code: REQUEST_CANCELLED,
              message: `request cancelled after ${counted} of ${steps} steps`,
              data: { cancelled: true, counted, total: steps },
            },
          });
          return { content: [{ type: "text", text: "cancelled" }], isError: true }; // dropped by the SDK
        }
        counted++;
        witness("step", { requestId, counted, total: steps, afterCancel: cancelledAt !== null });
        if (progressToken !== undefined) {
          // server.server.notification(), not extra.sendNotification(): the latter goes quiet after a cancel,
          // and a server that ignores the cancel keeps talking (as server-everything does).
          await server.server.notification(
            { method: "notifications/progress", params: { progressToken, progress: counted, total: steps, message: `counted ${counted}` } },
            { relatedRequestId: requestId },
          );
        }
      }
      const result = { content: [{ type: "text" as const, text: `counted to ${counted}` }], structuredContent: { counted } };
      witness("completed", { requestId, counted, afterCancel: cancelledAt !== null });
      if (cancelledAt !== null && onCancel === "finish") await send({ jsonrpc: "2.0", id: requestId, result });
      return result; // the SDK drops it if the request was cancelled ("ignore": no answer at all)
    },
  );
  return server;
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

async function main() {
  const transport = new StdioServerTransport();
  const server = createDemoMcpServer((message) => transport.send(message as never));
  await server.connect(transport);
  witness("ready", { pid: process.pid });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    process.stderr.write(`demo MCP server failed: ${(error as Error).stack ?? error}\n`);
    process.exit(1);
  });
}
