import type { Stream } from "node:stream";
import { traceMeta } from "../../observability/tracing";
import { Client, StreamableHTTPClientTransport, type CallToolResult, type Tool, type Transport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { z } from "zod";
import { Mechanism, type RiskLevel, WorkItemKind } from "../../ledger/states";
import { StoppedError, type CallRef, type InspectOutcome, type ToolContext, type ToolDefinition } from "../contract";
import { contractFromAnnotations, fillTemplate, fillValues, outcomeOf, taskOutcome, textOf, toolName, TaskSchema, type McpToolInfo } from "./mcp-mapping";
import { CALL_META_KEY, CallObserver, ObservingTransport, type McpCallObservation, type McpProgress, type OpenCall } from "./mcp-observation";

/**
 * The MCP adapter: every tool of an MCP server (stdio or Streamable HTTP) becomes a Stopline tool.
 *
 * How Stop reaches a call (mechanism `provider_cancel`): the call runs with the run's AbortSignal, so when the
 * Stop is recorded the SDK sends `notifications/cancelled {requestId, reason}`; `cancel(ref)` aborts the same
 * call (safe to repeat). The MCP specification lets a server ignore a cancellation and tells it not to
 * answer a cancelled request, and MCP has no way to ask a server afterwards what became of a call. So this
 * adapter reports ONLY WHAT IT OBSERVED on the connection that carried the call — every message of it is
 * recorded per call (McpCallObservation):
 *
 * | observed                                                        | inspect()                     |
 * |-----------------------------------------------------------------|-------------------------------|
 * | an answer with a result (`isError` not set), before or after the cancel | `committed` (the result)  |
 * | an answer with an error, or a result with `isError`             | `not_committed`               |
 * | the call was never sent (refused before it left)                | `not_committed`               |
 * | no cancel sent, no answer yet                                   | `running`                     |
 * | cancel sent, no answer, progress still arriving after the cancel | `running`                    |
 * | cancel sent, no answer within the grace period, progress stopped or never continued | `unknown`: "cancellation sent but not confirmed" |
 * | the connection closed before an answer; no record in this process | `unknown`, with the reason  |
 *
 * Silence is never taken for a stop: a server that stops sending progress and never answers may still be
 * working (server-everything's `trigger-long-running-operation` does exactly that). `inspect()` waits up to
 * `confirmGraceMs` after the cancel for an answer before it says so.
 *
 * Effects and annotations. A tool annotated `readOnlyHint: true` is preparation (`commitsEffect: false`, low
 * risk). Any other tool may have effects (`commitsEffect: true`; high risk unless `destructiveHint: false`):
 * it passes a checkpoint before the call is sent, and the call is recorded as submitted before it is sent
 * (a crash in between leaves it uncertain, never re-sent). Such a tool IS registered as `provider_cancel`
 * with the observation above as its `inspect()`: that is a real account of what the server said, and it
 * answers `unknown` for everything it did not see — after a process restart, or when the server neither
 * confirms nor completes — which puts the call in front of a person (uncertain + review item) rather than
 * reporting a stop or a completion nobody saw. The annotations are hints from the server, not guarantees:
 * pass `commitsEffect` / `risk` to override them for a server you do not trust.
 *
 * Protocol revisions (the SDK 2.x client, `@modelcontextprotocol/client`):
 * - 2025-11-25 (`protocol: "2025-11-25"`, the default on stdio): Stop sends `notifications/cancelled`;
 * - 2026-07-28 (`protocol: "2026-07-28"`, or `"auto"` — the default over HTTP — against a server that offers it):
 *   on Streamable HTTP the cancellation IS closing the call's response stream; the server sends nothing back
 *   (recorded as `cancelKind: "stream_closed"`). Nothing after the close can be observed on that request, so
 *   such a call ends "cancellation sent but not confirmed" unless its answer arrived first;
 * - the tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663), when the server advertises it: a
 *   `tools/call` may be answered with a task handle (`resultType: "task"`). The adapter polls `tasks/get` until a
 *   terminal status; Stop sends `tasks/cancel`, which is an ACKNOWLEDGEMENT only — the task may still complete.
 *   inspect() re-queries `tasks/get` and reports what the server says: completed → committed (with its result,
 *   even after the cancel), cancelled/failed → not committed, working → running; "cancel sent, not confirmed"
 *   until a terminal status is observed.
 *
 * What this does NOT guarantee: that the server stopped (only its answer says so), that a cancelled call had
 * no effect on the server's side, or anything about a call made through another process's connection.
 */

/** The tasks extension's identifier (SEP-2663). */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** Which revision the connection speaks: 2025-11-25 (initialize), 2026-07-28 (server/discover), or auto (probe, fall back). */
export type McpProtocol = "2025-11-25" | "2026-07-28" | "auto";

export type McpTransportOptions =
  | { stdio: { command: string; args?: string[]; env?: Record<string, string>; cwd?: string; stderr?: "inherit" | "ignore" | "pipe" } }
  | { url: string; headers?: Record<string, string> };

export interface ConnectMcpToolsOptions {
  transport: McpTransportOptions;
  /** Stopline tool names are `${prefix}.${tool.name}`. */
  prefix: string;
  /** Overrides the annotation-derived risk (all tools, or per tool). */
  risk?: RiskLevel | ((tool: McpToolInfo) => RiskLevel);
  /** Overrides the annotation-derived commitsEffect (all tools, or per tool). */
  commitsEffect?: boolean | ((tool: McpToolInfo) => boolean);
  /** Only these tools of the server (by MCP name); default all. */
  tools?: string[];
  /** How long inspect() waits after a cancel for the server's answer before it reports "not confirmed" (default 2 s). */
  confirmGraceMs?: number;
  /** A call without an answer or progress for this long times out (the SDK then sends a cancel too). Default 10 min. */
  callTimeoutMs?: number;
  /** Observations kept in memory (oldest dropped first). Default 5,000. */
  maxObservations?: number;
  clientInfo?: { name: string; version: string };
  /** Default: "auto" over HTTP, "2025-11-25" over stdio (an auto probe on stdio spawns a second server process). */
  protocol?: McpProtocol;
  /**
   * How to ask the server afterwards what became of a call of this tool (per tool), when what was observed on the
   * connection does not say — a cancel the server did not confirm, or a call made before this process started:
   * a later `tools/call` of an inspect tool, or a `resources/read`, on the same server (see McpInspectVia).
   */
  inspectVia?: (tool: McpToolInfo) => McpInspectVia | undefined;
}

/**
 * A configured inspect (issue 23): what MCP offers to find out afterwards what a call did. `tool` — a tool of the
 * same server called with `arguments`; `resource` — a resource URI of the same server, read. In `arguments` (string
 * values) and in `resource`, `{idempotencyKey}`, `{toolCallId}`, `{workItemId}` and `{arguments.<name>}` are
 * replaced by the call's values. The answer — the tool's `structuredContent` (or its text as JSON), or the resource's
 * text as JSON — is an InspectOutcome: `{"status":"committed","externalRecordId":…}`, `{"status":"not_committed"}`,
 * `{"status":"running"}` or `{"status":"unknown","reason":…}`. A resource the server does not have (resource not
 * found) is `not_committed`. For the server to know the call by its idempotency key, name the argument that carries
 * it (`idempotencyKeyArgument`): every call of the tool then sends the key in it.
 */
export interface McpInspectVia {
  tool?: string;
  resource?: string;
  arguments?: Record<string, unknown>;
  idempotencyKeyArgument?: string;
  /**
   * Written ahead (lib/tools/contract.ts `resources`): the kinds of resource a call of the tool may hold at the server.
   * Recorded before the request leaves; the inspect answer then carries `"holds": [{"type":…,"handle":…}]` — what the
   * server holds for the call now — and the tool's inspect() always asks the server (an observation on the connection
   * does not say what the server holds).
   */
  resources?: readonly string[];
}

const holdsSchema = z
  .array(z.object({ type: z.string().min(1).max(100), handle: z.string().min(1).max(500) }))
  .max(100)
  .optional();
const InspectAnswerSchema = z.discriminatedUnion("status", [
  z.object({
    status: z.literal("committed"),
    externalRecordId: z.string().nullish(),
    externalVersion: z.string().nullish(),
    currentVersion: z.string().nullish(),
    description: z.string().optional(),
    result: z.unknown().optional(),
    holds: holdsSchema,
  }),
  z.object({ status: z.literal("not_committed"), holds: holdsSchema }),
  z.object({ status: z.literal("running"), holds: holdsSchema }),
  z.object({ status: z.literal("unknown"), reason: z.string(), holds: holdsSchema }),
]);

export type McpCallInput = Record<string, unknown> | undefined;

export interface McpToolSet {
  /** One ToolDefinition per server tool, ready for ToolRegistry.register(). */
  tools: ToolDefinition<McpCallInput, CallToolResult>[];
  /** What the server said about each of those tools (tools/list), in the same order. */
  infos: McpToolInfo[];
  server: { name: string; version: string } | undefined;
  /** The protocol era negotiated with the server ("legacy" = 2025-11-25 and earlier, "modern" = 2026-07-28). */
  era: "legacy" | "modern" | undefined;
  /** Whether the server advertises the tasks extension. */
  tasks: boolean;
  /** What was observed of the call of this work item (undefined if this process has no record of it). */
  observation(workItemId: string): Readonly<McpCallObservation> | undefined;
  /** Progress notifications of the call of this work item, as they arrive (the MCP gateway forwards them). */
  onProgress(workItemId: string, listener: (progress: McpProgress) => void): () => void;
  /** The server's stderr when `stdio.stderr` is "pipe". */
  stderr: Stream | null;
  /** What the server offers besides tools (resources, prompts, completions, logging): the gateway relays those. */
  capabilities: Record<string, unknown>;
  /** A request to the server as it is (the gateway's relay of resources/*, prompts/*, completion/complete, logging/setLevel). */
  request(method: string, params: Record<string, unknown> | undefined): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function connectMcpTools(options: ConnectMcpToolsOptions): Promise<McpToolSet> {
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as ConnectMcpToolsOptions;
  const o = { confirmGraceMs: 2_000, callTimeoutMs: 10 * 60_000, maxObservations: 5_000, ...given };
  const observer = new CallObserver(o.maxObservations);

  let inner: Transport;
  let stderr: Stream | null = null;
  let label: string;
  if ("stdio" in o.transport) {
    const s = o.transport.stdio;
    const stdio = new StdioClientTransport({ command: s.command, args: s.args, env: s.env, cwd: s.cwd, stderr: s.stderr ?? "inherit" });
    stderr = stdio.stderr;
    inner = stdio;
    label = `stdio:${[s.command, ...(s.args ?? [])].join(" ")}`;
  } else {
    inner = new StreamableHTTPClientTransport(new URL(o.transport.url), { requestInit: { headers: o.transport.headers } });
    label = o.transport.url;
  }
  const transport = new ObservingTransport(inner, observer);
  const protocol = o.protocol ?? ("stdio" in o.transport ? "2025-11-25" : "auto");
  const client = new Client(o.clientInfo ?? { name: "stopline", version: "0.1.0" }, {
    versionNegotiation: { mode: protocol === "2025-11-25" ? "legacy" : protocol === "auto" ? "auto" : { pin: protocol } },
    capabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  } as ConstructorParameters<typeof Client>[1]);
  client.onerror = () => {}; // late answers and progress for cancelled calls land here; the observer already saw them
  await client.connect(transport);
  const era = client.getProtocolEra();
  observer.era = era ?? null;
  const tasksSupported = !!(client.getServerCapabilities() as { extensions?: Record<string, unknown> } | undefined)?.extensions?.[TASKS_EXTENSION];
  const getTask = async (taskId: string, signal?: AbortSignal) => {
    const answer = (await client.request(
      { method: "tasks/get", params: { taskId } } as never,
      TaskSchema as never,
      { signal, timeout: 10_000 } as never,
    )) as z.infer<typeof TaskSchema>;
    return answer;
  };
  const observeTask = async (call: OpenCall, signal?: AbortSignal) => {
    const t = await getTask(call.task!.taskId, signal);
    call.task = {
      ...call.task!,
      status: t.status,
      statusMessage: t.statusMessage,
      pollIntervalMs: t.pollIntervalMs ?? call.task!.pollIntervalMs,
      observedAt: Date.now(),
      result: t.result as CallToolResult | undefined,
      error: t.error,
    };
    return call.task;
  };

  const listed: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    listed.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  const wanted = o.tools ? listed.filter((t) => o.tools!.includes(t.name)) : listed;
  if (o.tools) {
    const missing = o.tools.filter((name) => !listed.some((t) => t.name === name));
    if (missing.length) {
      await client.close();
      throw new Error(`the MCP server ${label} has no tool ${missing.map((m) => `"${m}"`).join(", ")}`);
    }
  }
  const server = client.getServerVersion();

  /** Polls a task until it is terminal; on abort sends tasks/cancel (an acknowledgement only) and stops waiting. */
  const followTask = async (call: OpenCall, signal: AbortSignal): Promise<CallToolResult> => {
    for (;;) {
      const t = await observeTask(call).catch((error: unknown) => {
        throw new Error(`tasks/get for task ${call.task!.taskId} failed: ${(error as Error).message}`);
      });
      if (t.status === "completed") {
        call.answer = {
          at: Date.now(),
          afterCancel: call.cancelSentAt !== null,
          kind: "result",
          result: t.result ?? { content: [] },
          isError: t.result?.isError === true,
        };
        return t.result ?? { content: [] };
      }
      if (t.status === "failed" || t.status === "cancelled") {
        const error = (t.error ?? {}) as { code?: number; message?: string };
        call.answer = {
          at: Date.now(),
          afterCancel: call.cancelSentAt !== null,
          kind: "error",
          error: { code: error.code ?? -32603, message: error.message ?? `task ${t.status}${t.statusMessage ? `: ${t.statusMessage}` : ""}` },
        };
        throw new Error(`the server's task ${t.taskId} ended ${t.status}${t.statusMessage ? `: ${t.statusMessage}` : ""}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(Math.max(t.pollIntervalMs ?? 500, 50), 5_000));
        function done() {
          clearTimeout(timer);
          signal.removeEventListener("abort", done);
          resolve();
        }
        signal.addEventListener("abort", done, { once: true });
      });
      if (signal.aborted) {
        await cancelTask(call);
        throw signal.reason;
      }
    }
  };
  const cancelTask = async (call: OpenCall) => {
    if (!call.task || call.task.cancelAckAt !== null || call.cancelSentAt !== null) return;
    call.cancelSentAt = Date.now();
    call.cancelKind = "tasks_cancel";
    try {
      await client.request(
        { method: "tasks/cancel", params: { taskId: call.task.taskId } } as never,
        z.object({}).loose() as never,
        { timeout: 10_000 } as never,
      );
      call.task.cancelAckAt = Date.now();
    } catch (error) {
      call.cancelSendError = `tasks/cancel failed: ${(error as Error).message}`;
    }
  };

  /** A configured inspect (McpInspectVia): a later tools/call of the inspect tool, or resources/read, on this server. */
  const askServer = async (via: McpInspectVia, ref: CallRef, where: string, observed: string): Promise<InspectOutcome> => {
    const fill = (text: string) => fillTemplate(text, ref);
    const how = via.tool ? `tools/call ${via.tool}` : `resources/read ${fill(via.resource!)}`;
    try {
      let answer: unknown;
      if (via.tool) {
        const result = (await client.callTool(
          { name: via.tool, arguments: fillValues(via.arguments ?? {}, fill) as Record<string, unknown> },
          { timeout: 10_000 },
        )) as CallToolResult;
        if (result.isError) return { status: "unknown", reason: `${observed}; ${how} answered with an error: ${textOf(result)}` };
        answer = result.structuredContent ?? JSON.parse(textOf(result));
      } else {
        const read = await client.readResource({ uri: fill(via.resource!) }, { timeout: 10_000 });
        const first = read.contents[0] as { text?: string } | undefined;
        if (!first?.text) return { status: "unknown", reason: `${observed}; ${how} returned no text` };
        answer = JSON.parse(first.text);
      }
      const parsed = InspectAnswerSchema.safeParse(answer);
      if (!parsed.success)
        return { status: "unknown", reason: `${observed}; ${how} answered something that is not an outcome: ${JSON.stringify(answer).slice(0, 200)}` };
      return parsed.data as InspectOutcome;
    } catch (error) {
      const code = (error as { code?: number }).code;
      // The record does not exist on the server: the call never took effect there (resource not found).
      if (via.resource && (code === -32002 || code === -32602)) return { status: "not_committed", ...(via.resources?.length ? { holds: [] } : {}) };
      return { status: "unknown", reason: `${observed}; asking ${where} (${how}) failed: ${(error as Error).message}` };
    }
  };

  const tools = wanted.map((info) => {
    const derived = contractFromAnnotations(info);
    const commitsEffect = typeof o.commitsEffect === "function" ? o.commitsEffect(info) : (o.commitsEffect ?? derived.commitsEffect);
    const risk = typeof o.risk === "function" ? o.risk(info) : (o.risk ?? derived.risk);
    const name = toolName(o.prefix, info.name);
    const where = `${info.name} on ${server?.name ?? label}`;
    const via = o.inspectVia?.(info);

    const tool: ToolDefinition<McpCallInput, CallToolResult> = {
      name,
      kind: WorkItemKind.remoteTool,
      risk,
      commitsEffect,
      mechanism: Mechanism.providerCancel,
      ...(via?.resources?.length && (via.tool || via.resource) ? { resources: via.resources } : {}),

      async run(input, ctx: ToolContext) {
        if (commitsEffect) await ctx.checkpoint();
        else if (ctx.signal.aborted) throw ctx.signal.reason;
        const call = observer.open(ctx.workItemId, info.name);
        // Recorded BEFORE the request leaves: a crash in between leaves the item uncertain (asked about,
        // never re-sent) instead of "never submitted" (which would run it again). A tool without effects has nothing
        // to reconcile: it is not recorded as submitted, and a Stop of it is a stop (below).
        if (commitsEffect) {
          try {
            await ctx.submitted(`mcp:${ctx.idempotencyKey}`, { providerRef: call.callId, description: `MCP ${where}` });
          } catch (error) {
            call.notSent = `the submission was not recorded: ${(error as Error).message}`;
            throw error;
          }
        }
        const keyArgument = via?.idempotencyKeyArgument;
        const args = keyArgument ? { ...(input ?? {}), [keyArgument]: ctx.idempotencyKey } : (input ?? {});
        if (ctx.signal.aborted) {
          call.notSent = "stopped before the request was sent";
          throw ctx.signal.reason;
        }
        // One controller per call: the run's signal (Stop, lost lease) or cancel() abort it; the SDK then sends
        // notifications/cancelled for exactly this request.
        const controller = observer.controllerOf(call);
        const stopOnRunSignal = () => controller.abort(ctx.signal.reason);
        ctx.signal.addEventListener("abort", stopOnRunSignal, { once: true });
        // The server's progress is the call's progress in the chat and the console (coalesced by the runner).
        const unsubscribeProgress = observer.onProgress(
          ctx.workItemId,
          (p) =>
            void ctx
              .reportProgress({ done: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message ? { message: p.message } : {}) })
              .catch(() => {}),
        );
        try {
          let result: CallToolResult;
          try {
            result = (await client.callTool(
              { name: info.name, arguments: args, _meta: traceMeta({ [CALL_META_KEY]: call.callId }, ctx.traceparent) }, // + the call's traceparent
              {
                signal: controller.signal,
                timeout: o.callTimeoutMs,
                resetTimeoutOnProgress: true,
                onprogress: () => {}, // asks the server for progress; the observer records it (also after a cancel)
              },
            )) as CallToolResult;
          } catch (error) {
            // The SDK has no runtime for the tasks extension: it refuses a task handle as a tools/call result. The
            // observer read the handle off the wire; the call is then followed through tasks/get.
            if (!call.task || controller.signal.aborted) throw error;
            result = await followTask(call, controller.signal);
          }
          if (result.isError) throw new Error(`${where} answered with an error: ${textOf(result)}`);
          return result;
        } catch (error) {
          if (call.sentAt === null && call.notSent === null) call.notSent = `the request could not be sent: ${(error as Error).message}`;
          if (ctx.signal.aborted && !commitsEffect) {
            // A call that changes nothing, told to stop the way its protocol revision says (notifications/cancelled,
            // the closed stream, tasks/cancel). An answer that still comes within the grace period is what happened
            // (a result: it completed); without one, whatever the server still does has no effect to confirm — stopped.
            await observer.cancelDelivered(call, 2_000);
            if (call.task) await cancelTask(call);
            if (call.sentAt !== null && call.cancelKind !== "stream_closed")
              await observer.waitForAnswer(call, (call.cancelSentAt ?? Date.now()) + o.confirmGraceMs);
            if (call.answer?.kind === "result" && !call.answer.isError) return call.answer.result;
            const how = call.answer
              ? "the server answered the cancelled request with an error"
              : call.cancelKind === "stream_closed"
                ? "its response stream was closed"
                : call.cancelKind === "tasks_cancel"
                  ? "tasks/cancel was sent"
                  : call.sentAt === null
                    ? "it was never sent"
                    : "notifications/cancelled was sent";
            throw new StoppedError(`${where} was stopped (${how}); it has no effect, so nothing is left to confirm`);
          }
          if (ctx.signal.aborted) throw ctx.signal.reason;
          throw error;
        } finally {
          ctx.signal.removeEventListener("abort", stopOnRunSignal);
          unsubscribeProgress();
        }
      },

      async cancel(ref) {
        const call = observer.find(ref);
        if (!call)
          throw new Error(
            `no call of work item ${ref.workItemId} is known on this process's connection to ${where}; an MCP cancellation can only travel on the connection that carried the request`,
          );
        if (call.notSent !== null || call.answer !== null) return; // nothing left to cancel
        if (call.connectionClosedAt !== null) throw new Error(`the connection to ${where} closed before it answered; the cancellation cannot be sent`);
        if (call.task) {
          observer.controllerOf(call).abort(new Error("Stopline: the task was stopped"));
          await cancelTask(call);
          if (call.cancelSendError) throw new Error(call.cancelSendError);
          return;
        }
        observer.controllerOf(call).abort(new Error("Stopline: the task was stopped"));
        await observer.cancelDelivered(call, 5_000);
        if (call.cancelSendError) throw new Error(`notifications/cancelled could not be sent: ${call.cancelSendError}`);
        if (call.cancelSentAt === null && call.answer === null) throw new Error("notifications/cancelled was not sent");
      },

      async inspect(ref) {
        const call = observer.find(ref);
        if (!call) {
          if (via?.tool || via?.resource) return askServer(via, ref, where, "this process has no record of the call");
          return {
            status: "unknown",
            reason: `this process has no record of the call (MCP offers no way to ask ${where} about an earlier call; it can only be observed on the connection that carried it)`,
          };
        }
        if (call.task && call.answer === null) {
          // tasks/cancel was only acknowledged: ask again, until a terminal status or the grace period ends.
          const until = (call.cancelSentAt ?? Date.now()) + o.confirmGraceMs;
          for (;;) {
            try {
              const t = await observeTask(call);
              if (t.status === "completed" || t.status === "failed" || t.status === "cancelled") break;
            } catch (error) {
              return {
                status: "unknown",
                reason: `tasks/get for task ${call.task.taskId} failed: ${(error as Error).message}${call.cancelSentAt !== null ? " (cancel sent, not confirmed)" : ""}`,
              };
            }
            if (Date.now() >= until) break;
            await new Promise((r) => setTimeout(r, Math.min(call.task!.pollIntervalMs ?? 200, 500)));
          }
          return taskOutcome(call);
        }
        if (call.cancelSentAt !== null && call.answer === null && call.connectionClosedAt === null) {
          await observer.waitForAnswer(call, call.cancelSentAt + o.confirmGraceMs);
        }
        const observed = outcomeOf(call, o.confirmGraceMs);
        // What the connection showed does not say (a cancel not confirmed, a closed connection): ask the server.
        if (observed.status === "unknown" && (via?.tool || via?.resource)) return askServer(via, ref, where, observed.reason);
        // Written ahead: what the server holds for the call is only the server's to say — asked even when the outcome was observed.
        if (via?.resources?.length && (via.tool || via.resource)) {
          const asked = await askServer(via, ref, where, "what the server holds for the call");
          return asked.holds ? { ...observed, holds: asked.holds } : observed;
        }
        return observed;
      },

      describeEffect: (effect) => effect.description ?? `MCP ${where} (${effect.operationId})`,
    };
    return tool;
  });

  return {
    tools,
    infos: wanted.map(({ name, title, description, annotations, inputSchema }) => ({ name, title, description, annotations, inputSchema })),
    server,
    era,
    tasks: tasksSupported,
    observation: (workItemId) => {
      const call = observer.byWorkItem.get(workItemId);
      if (!call) return undefined;
      const { controller: _controller, cancelSending: _sending, ...seen } = call;
      return structuredClone(seen);
    },
    onProgress: (workItemId, listener) => observer.onProgress(workItemId, listener),
    stderr,
    capabilities: (client.getServerCapabilities() ?? {}) as Record<string, unknown>,
    request: (method, params) =>
      client.request({ method, ...(params ? { params } : {}) } as never, z.object({}).loose() as never, { timeout: 30_000 } as never) as Promise<
        Record<string, unknown>
      >,
    close: () => client.close(),
  };
}
