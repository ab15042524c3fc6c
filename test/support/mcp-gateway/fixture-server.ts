/**
 * A real MCP server written with the SDK 2.x (`@modelcontextprotocol/server`), served over Streamable HTTP for
 * both protocol eras (createMcpHandler: 2026-07-28 natively, 2025 clients per request). No package on the
 * registry provides a server with the tasks extension, so this one does:
 *
 * - `slow_job {ms, onCancel}` — TASKS EXTENSION (`io.modelcontextprotocol/tasks`): to a request that declares the
 *   extension it answers with a task handle (`resultType: "task"`) and runs the job in the background;
 *   `tasks/get` reports its status, `tasks/cancel` is acknowledged at once (an acknowledgement only) —
 *   `onCancel: "stop"` then stops the job (status cancelled), `onCancel: "finish"` completes it anyway;
 * - `wait {ms}` — a plain call that honours its request's cancellation (on 2026-07-28 HTTP: the closed stream);
 * - the tools the official conformance suite calls (`test_simple_text`, `test_error_handling`, `test_tool_with_progress`,
 *   `test_image_content`, `test_audio_content`, `test_embedded_resource`, `test_multiple_content_types`,
 *   `test_tool_with_logging`), written here from the suite's scenario descriptions — the upstream the suite meets behind
 *   the gateway (test/lib/mcp-gateway/conformance.int.test.ts).
 *
 * Everything it does is written to `witness` (what the server itself saw), for tests to compare with what
 * Stopline reports.
 */
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createMcpHandler, McpServer, ProtocolError, ResourceNotFoundError } from "@modelcontextprotocol/server";
import { z } from "zod";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

export interface FixtureWitness {
  at: number;
  fact: string;
  detail?: Record<string, unknown>;
}

interface Job {
  taskId: string;
  status: "working" | "completed" | "cancelled" | "failed";
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  result?: unknown;
  onCancel: "stop" | "finish";
  timer?: NodeJS.Timeout;
}

export interface FixtureServer {
  url: string;
  witness: FixtureWitness[];
  jobs: Map<string, Job>;
  close(): Promise<void>;
}

const TOOLS = [
  {
    name: "slow_job",
    description: "A long job; with the tasks extension it runs as a task (tasks/get, tasks/cancel).",
    inputSchema: { type: "object", properties: { ms: { type: "number" }, onCancel: { type: "string", enum: ["stop", "finish"] } }, required: ["ms"] },
    annotations: { readOnlyHint: false, destructiveHint: false },
  },
  {
    name: "wait",
    description: "Waits ms milliseconds; stops when its request is cancelled.",
    inputSchema: { type: "object", properties: { ms: { type: "number" } }, required: ["ms"] },
    annotations: { readOnlyHint: true },
  },
  {
    name: "test_simple_text",
    description: "Returns simple text (conformance).",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: "test_error_handling",
    description: "Always fails (conformance).",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: "test_tool_with_progress",
    description: "Reports progress 0, 50, 100 (conformance).",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: "place_order",
    description:
      "Places an order after `ms` (an effect). onCancel: stop (honours a cancelled request) or finish (places it anyway). No answer to a cancelled request, as the spec says.",
    inputSchema: {
      type: "object",
      properties: { item: { type: "string" }, ms: { type: "number" }, onCancel: { type: "string", enum: ["stop", "finish"] }, key: { type: "string" } },
      required: ["item"],
    },
    annotations: { readOnlyHint: false, destructiveHint: false },
  },
  {
    name: "order_status",
    description: "What became of the order placed with idempotency key `key`: an InspectOutcome.",
    inputSchema: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
    annotations: { readOnlyHint: true },
  },
  {
    name: "test_image_content",
    description: "Returns an image (conformance).",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: "test_audio_content",
    description: "Returns audio (conformance).",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: "test_embedded_resource",
    description: "Returns an embedded resource (conformance).",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: "test_multiple_content_types",
    description: "Returns text, an image and a resource (conformance).",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: "test_tool_with_logging",
    description: "Sends three log messages while it runs (conformance).",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    // JSON Schema 2020-12 keywords a gateway must pass through unchanged in tools/list (SEP-1613, SEP-2106; conformance).
    name: "json_schema_2020_12_tool",
    description: "A tool whose input schema uses JSON Schema 2020-12 keywords (conformance).",
    annotations: { readOnlyHint: true },
    inputSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: { address: { $anchor: "addressDef", type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
      properties: {
        name: { type: "string" },
        address: { $ref: "#/$defs/address" },
        contactMethod: { type: "string", enum: ["phone", "email"] },
        phone: { type: "string" },
        email: { type: "string" },
      },
      allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
      if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
      then: { required: ["phone"] },
      else: { required: ["email"] },
      additionalProperties: false,
    },
  },
];

/** A 1×1 red PNG and a tiny silent WAV: the smallest valid payloads for the conformance suite's content tools. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";

const Args = z.object({ ms: z.number().int().min(0).max(600_000).default(1_000), onCancel: z.enum(["stop", "finish"]).default("stop") }).loose();

export async function startFixtureServer(): Promise<FixtureServer> {
  const witness: FixtureWitness[] = [];
  const orders = new Map<string, { item: string; status: "placing" | "placed" | "cancelled"; id?: string }>();
  const jobs = new Map<string, Job>();
  let next = 0;
  const see = (fact: string, detail?: Record<string, unknown>) => witness.push({ at: Date.now(), fact, detail });
  const now = () => new Date().toISOString();

  const handler = createMcpHandler(({ era }) => {
    const server = new McpServer(
      { name: "stopline-fixture", version: "1.0.0" },
      { capabilities: { tools: {}, logging: {}, resources: {}, prompts: {}, completions: {}, extensions: { [TASKS_EXTENSION]: {} } } as never },
    );
    const low = server.server as unknown as {
      setRequestHandler(method: string, a: unknown, b?: unknown): void;
    };
    low.setRequestHandler("tools/list", async () => ({ tools: TOOLS }));
    low.setRequestHandler(
      "tools/call",
      async (request: { params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> } }, ctx: any) => {
        const { name } = request.params;
        const args = Args.parse(request.params.arguments ?? {});
        const envelope = (ctx.mcpReq.envelope ?? {}) as Record<string, any>;
        const caps = envelope["io.modelcontextprotocol/clientCapabilities"] ?? (request.params._meta?.["io.modelcontextprotocol/clientCapabilities"] as any);
        const wantsTasks = !!caps?.extensions?.[TASKS_EXTENSION];
        const signal: AbortSignal = ctx.mcpReq.signal;
        switch (name) {
          case "slow_job": {
            if (!wantsTasks) {
              await sleep(args.ms, signal);
              return { content: [{ type: "text", text: signal.aborted ? "aborted" : "job done" }] };
            }
            const job: Job = { taskId: `task-${++next}`, status: "working", createdAt: now(), lastUpdatedAt: now(), onCancel: args.onCancel };
            jobs.set(job.taskId, job);
            see("task_created", { taskId: job.taskId, ms: args.ms, onCancel: args.onCancel, era });
            job.timer = setTimeout(() => {
              if (job.status !== "working") return;
              job.status = "completed";
              job.lastUpdatedAt = now();
              job.result = { content: [{ type: "text", text: `job ${job.taskId} done` }], structuredContent: { done: true } };
              see("task_completed", { taskId: job.taskId });
            }, args.ms);
            return {
              resultType: "task",
              taskId: job.taskId,
              status: job.status,
              statusMessage: "working on it",
              createdAt: job.createdAt,
              lastUpdatedAt: job.lastUpdatedAt,
              ttlMs: null,
              pollIntervalMs: 50,
            };
          }
          case "wait": {
            see("wait_started", { ms: args.ms, era });
            const finished = await sleep(args.ms, signal);
            if (!finished) {
              see("wait_aborted", { reason: String(signal.reason ?? ""), era });
              return { content: [{ type: "text", text: "aborted" }], isError: true };
            }
            see("wait_completed", { era });
            return { content: [{ type: "text", text: `waited ${args.ms} ms` }] };
          }
          case "json_schema_2020_12_tool":
            return { content: [{ type: "text", text: "ok" }] };
          case "test_simple_text":
            return { content: [{ type: "text", text: "This is a simple text response for testing." }] };
          case "test_error_handling":
            return { isError: true, content: [{ type: "text", text: "This tool intentionally returns an error for testing" }] };
          case "place_order": {
            const key = String(request.params.arguments?.key ?? "");
            const item = String(request.params.arguments?.item ?? "");
            orders.set(key, { item, status: "placing" });
            see("order_started", { key, item, onCancel: args.onCancel });
            const finished = await sleep(args.ms, args.onCancel === "stop" ? signal : undefined);
            if (!finished) {
              orders.set(key, { item, status: "cancelled" });
              see("order_cancelled", { key });
              return { content: [{ type: "text", text: "cancelled" }], isError: true };
            }
            const id = `ord_${orders.size}`;
            orders.set(key, { item, status: "placed", id });
            see("order_placed", { key, id, afterCancel: signal.aborted });
            return { content: [{ type: "text", text: `order ${id} placed` }], structuredContent: { orderId: id } };
          }
          case "order_status": {
            const order = orders.get(String(request.params.arguments?.key ?? ""));
            see("order_status_asked", { key: request.params.arguments?.key, status: order?.status ?? null });
            const outcome =
              !order || order.status === "cancelled"
                ? { status: "not_committed" }
                : order.status === "placing"
                  ? { status: "running" }
                  : { status: "committed", externalRecordId: order.id, description: `order ${order.id} (${order.item})` };
            return { content: [{ type: "text", text: JSON.stringify(outcome) }], structuredContent: outcome };
          }
          case "test_image_content":
            return { content: [{ type: "image", data: PNG, mimeType: "image/png" }] };
          case "test_audio_content":
            return { content: [{ type: "audio", data: WAV, mimeType: "audio/wav" }] };
          case "test_embedded_resource":
            return {
              content: [
                { type: "resource", resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." } },
              ],
            };
          case "test_multiple_content_types":
            return {
              content: [
                { type: "text", text: "Multiple content types test:" },
                { type: "image", data: PNG, mimeType: "image/png" },
                {
                  type: "resource",
                  resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: JSON.stringify({ test: "data", value: 123 }) },
                },
              ],
            };
          case "test_tool_with_logging": {
            for (const [i, data] of ["Tool execution started", "Tool processing data", "Tool execution completed"].entries()) {
              if (i) await sleep(50);
              await ctx.mcpReq.notify({ method: "notifications/message", params: { level: "info", data } }).catch(() => {});
            }
            return { content: [{ type: "text", text: "Logging test completed" }] };
          }
          case "test_tool_with_progress": {
            const progressToken = ctx.mcpReq._meta?.progressToken;
            for (const progress of [0, 50, 100]) {
              if (progressToken !== undefined) await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken, progress, total: 100 } });
              if (progress < 100) await sleep(50);
            }
            return { content: [{ type: "text", text: "Progress test completed" }] };
          }
          default:
            return { isError: true, content: [{ type: "text", text: `unknown tool ${name}` }] };
        }
      },
    );
    // What the conformance suite reads through the gateway: resources, prompts, completions, logging (relayed as they are).
    low.setRequestHandler("resources/list", async () => ({
      resources: [
        { uri: "test://static-text", name: "static-text", title: "Static text", mimeType: "text/plain" },
        { uri: "test://static-binary", name: "static-binary", title: "Static binary", mimeType: "image/png" },
      ],
    }));
    low.setRequestHandler("resources/templates/list", async () => ({
      resourceTemplates: [{ uriTemplate: "test://template/{id}/data", name: "template", mimeType: "application/json" }],
    }));
    low.setRequestHandler("resources/read", async (request: { params: { uri: string } }) => {
      const { uri } = request.params;
      if (uri === "test://static-text") return { contents: [{ uri, mimeType: "text/plain", text: "This is the content of the static text resource." }] };
      if (uri === "test://static-binary") return { contents: [{ uri, mimeType: "image/png", blob: PNG }] };
      const id = /^test:\/\/template\/([^/]+)\/data$/.exec(uri)?.[1];
      if (id) return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }] };
      throw new ResourceNotFoundError(uri);
    });
    low.setRequestHandler("prompts/list", async () => ({
      prompts: [
        { name: "test_simple_prompt", description: "A simple prompt without arguments" },
        {
          name: "test_prompt_with_arguments",
          description: "A prompt with two arguments",
          arguments: [
            { name: "arg1", description: "First test argument", required: true },
            { name: "arg2", description: "Second test argument", required: true },
          ],
        },
        {
          name: "test_prompt_with_embedded_resource",
          description: "A prompt embedding a resource",
          arguments: [{ name: "resourceUri", description: "URI of the resource to embed", required: true }],
        },
        { name: "test_prompt_with_image", description: "A prompt with an image" },
      ],
    }));
    low.setRequestHandler("prompts/get", async (request: { params: { name: string; arguments?: Record<string, string> } }) => {
      const a = request.params.arguments ?? {};
      switch (request.params.name) {
        case "test_simple_prompt":
          return { messages: [{ role: "user", content: { type: "text", text: "This is a simple prompt for testing." } }] };
        case "test_prompt_with_arguments":
          return { messages: [{ role: "user", content: { type: "text", text: `Prompt with arguments: arg1='${a.arg1}', arg2='${a.arg2}'` } }] };
        case "test_prompt_with_embedded_resource":
          return {
            messages: [
              {
                role: "user",
                content: { type: "resource", resource: { uri: a.resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." } },
              },
              { role: "user", content: { type: "text", text: "Please process the embedded resource above." } },
            ],
          };
        case "test_prompt_with_image":
          return {
            messages: [
              { role: "user", content: { type: "image", data: PNG, mimeType: "image/png" } },
              { role: "user", content: { type: "text", text: "Please analyze the image above." } },
            ],
          };
        default:
          throw new ProtocolError(-32602, `Unknown prompt: ${request.params.name}`);
      }
    });
    low.setRequestHandler("completion/complete", async (request: { params: { argument: { value: string } } }) => {
      const values = ["paris", "park", "party"].filter((v) => v.startsWith(request.params.argument.value));
      return { completion: { values, total: values.length, hasMore: false } };
    });
    low.setRequestHandler("logging/setLevel", async () => ({}));
    low.setRequestHandler("tasks/get", { params: z.object({ taskId: z.string() }).loose() }, async ({ taskId }: { taskId: string }) => {
      const job = jobs.get(taskId);
      if (!job) throw new Error(`no task ${taskId}`);
      see("tasks_get", { taskId, status: job.status });
      return {
        resultType: "complete",
        taskId,
        status: job.status,
        statusMessage: job.statusMessage,
        createdAt: job.createdAt,
        lastUpdatedAt: job.lastUpdatedAt,
        ttlMs: null,
        pollIntervalMs: 50,
        ...(job.result ? { result: job.result } : {}),
      };
    });
    low.setRequestHandler("tasks/cancel", { params: z.object({ taskId: z.string() }).loose() }, async ({ taskId }: { taskId: string }) => {
      const job = jobs.get(taskId);
      if (!job) throw new Error(`no task ${taskId}`);
      see("tasks_cancel_received", { taskId, status: job.status, onCancel: job.onCancel });
      if (job.onCancel === "stop" && job.status === "working") {
        // Eventually consistent, as the extension allows: the status changes a little after the acknowledgement.
        setTimeout(() => {
          if (job.status !== "working") return;
          clearTimeout(job.timer);
          job.status = "cancelled";
          job.statusMessage = "cancelled on request";
          job.lastUpdatedAt = now();
          see("task_cancelled", { taskId });
        }, 30);
      }
      return {};
    });
    return server;
  });

  const http: HttpServer = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
    const request = new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url}`, {
      method: req.method,
      headers,
      body: req.method === "POST" ? Buffer.concat(chunks) : undefined,
      signal: abort.signal,
    });
    try {
      const response = await handler.fetch(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) for await (const c of response.body as unknown as AsyncIterable<Uint8Array>) res.write(c);
      res.end();
    } catch {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    witness,
    jobs,
    close: () =>
      new Promise<void>((resolve) => {
        for (const job of jobs.values()) clearTimeout(job.timer);
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** Resolves true after ms, or false as soon as the signal aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => done(true), ms);
    const onAbort = () => done(false);
    function done(value: boolean) {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(value);
    }
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
