import type { Stream } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type CallToolResult,
  type JSONRPCMessage,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { Mechanism, RiskLevel, WorkItemKind } from "../../ledger/states";
import type { CallRef, InspectOutcome, ToolContext, ToolDefinition } from "../contract";

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
 * What this does NOT guarantee: that the server stopped (only its answer says so), that a cancelled call had
 * no effect on the server's side, or anything about a call made through another process's connection.
 */

/** The `_meta` key that tags Stopline's calls so the adapter can find their JSON-RPC id on the wire. */
export const CALL_META_KEY = "dev.stopline/tool-call-id";

export type McpTransportOptions =
  | { stdio: { command: string; args?: string[]; env?: Record<string, string>; cwd?: string; stderr?: "inherit" | "ignore" | "pipe" } }
  | { url: string; headers?: Record<string, string> };

/** What the adapter knows about a server's tool when it decides its contract. */
export type McpToolInfo = Pick<Tool, "name" | "title" | "description" | "annotations" | "inputSchema">;

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
}

export interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
  at: number;
}

/** Everything the adapter saw of one call, on the connection that carried it. Times are ms since the epoch. */
export interface McpCallObservation {
  workItemId: string;
  callId: string;
  tool: string;
  /** The JSON-RPC id of the `tools/call` request (null until it was sent). */
  requestId: string | number | null;
  sentAt: number | null;
  /** Why the call never left this process (then nothing reached the server). */
  notSent: string | null;
  lastProgress: McpProgress | null;
  progressCount: number;
  /** When `notifications/cancelled` for this call was handed to the transport. */
  cancelSentAt: number | null;
  cancelReason: string | null;
  cancelSendError: string | null;
  /** Progress notifications that arrived after the cancel was sent. */
  progressAfterCancel: number;
  answer:
    | { at: number; afterCancel: boolean; kind: "result"; result: CallToolResult; isError: boolean }
    | { at: number; afterCancel: boolean; kind: "error"; error: { code: number; message: string; data?: unknown } }
    | null;
  connectionClosedAt: number | null;
}

export type McpCallInput = Record<string, unknown> | undefined;

export interface McpToolSet {
  /** One ToolDefinition per server tool, ready for ToolRegistry.register(). */
  tools: ToolDefinition<McpCallInput, CallToolResult>[];
  server: { name: string; version: string } | undefined;
  /** What was observed of the call of this work item (undefined if this process has no record of it). */
  observation(workItemId: string): Readonly<McpCallObservation> | undefined;
  /** The server's stderr when `stdio.stderr` is "pipe". */
  stderr: Stream | null;
  close(): Promise<void>;
}

/** The annotation-derived contract (before overrides): read-only → preparation; otherwise an effect. */
export function contractFromAnnotations(tool: McpToolInfo): { commitsEffect: boolean; risk: RiskLevel } {
  const a = tool.annotations ?? {};
  if (a.readOnlyHint === true) return { commitsEffect: false, risk: RiskLevel.low };
  // The specification's defaults: not read-only, destructive unless it says otherwise.
  return { commitsEffect: true, risk: a.destructiveHint === false ? RiskLevel.low : RiskLevel.high };
}

/** Stopline tool names allow letters, digits and . _ : - (lib/tools/registry.ts). */
const toolName = (prefix: string, name: string) => `${prefix}.${name.replace(/[^\w.:-]/g, "_")}`;

export async function connectMcpTools(options: ConnectMcpToolsOptions): Promise<McpToolSet> {
  const o = { confirmGraceMs: 2_000, callTimeoutMs: 10 * 60_000, maxObservations: 5_000, ...options };
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
  const client = new Client(o.clientInfo ?? { name: "stopline", version: "0.1.0" });
  client.onerror = () => {}; // late answers and progress for cancelled calls land here; the observer already saw them
  await client.connect(transport);

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

  const tools = wanted.map((info) => {
    const derived = contractFromAnnotations(info);
    const commitsEffect = typeof o.commitsEffect === "function" ? o.commitsEffect(info) : (o.commitsEffect ?? derived.commitsEffect);
    const risk = typeof o.risk === "function" ? o.risk(info) : (o.risk ?? derived.risk);
    const name = toolName(o.prefix, info.name);
    const where = `${info.name} on ${server?.name ?? label}`;

    const tool: ToolDefinition<McpCallInput, CallToolResult> = {
      name,
      kind: WorkItemKind.remoteTool,
      risk,
      commitsEffect,
      mechanism: Mechanism.providerCancel,

      async run(input, ctx: ToolContext) {
        if (commitsEffect) await ctx.checkpoint();
        else if (ctx.signal.aborted) throw ctx.signal.reason;
        const call = observer.open(ctx.workItemId, info.name);
        // Recorded BEFORE the request leaves: a crash in between leaves the item uncertain (asked about,
        // never re-sent) instead of "never submitted" (which would run it again).
        try {
          await ctx.submitted(`mcp:${ctx.idempotencyKey}`, { providerRef: call.callId, description: `MCP ${where}` });
        } catch (error) {
          call.notSent = `the submission was not recorded: ${(error as Error).message}`;
          throw error;
        }
        if (ctx.signal.aborted) {
          call.notSent = "stopped before the request was sent";
          throw ctx.signal.reason;
        }
        // One controller per call: the run's signal (Stop, lost lease) or cancel() abort it; the SDK then sends
        // notifications/cancelled for exactly this request.
        const controller = observer.controllerOf(call);
        const stopOnRunSignal = () => controller.abort(ctx.signal.reason);
        ctx.signal.addEventListener("abort", stopOnRunSignal, { once: true });
        try {
          const result = (await client.callTool(
            { name: info.name, arguments: input ?? {}, _meta: { [CALL_META_KEY]: call.callId } },
            undefined,
            {
              signal: controller.signal,
              timeout: o.callTimeoutMs,
              resetTimeoutOnProgress: true,
              onprogress: () => {}, // asks the server for progress; the observer records it (also after a cancel)
            },
          )) as CallToolResult;
          if (result.isError) throw new Error(`${where} answered with an error: ${textOf(result)}`);
          return result;
        } catch (error) {
          if (call.sentAt === null && call.notSent === null) call.notSent = `the request could not be sent: ${(error as Error).message}`;
          if (ctx.signal.aborted) throw ctx.signal.reason;
          throw error;
        } finally {
          ctx.signal.removeEventListener("abort", stopOnRunSignal);
        }
      },

      async cancel(ref) {
        const call = observer.find(ref);
        if (!call) throw new Error(`no call of work item ${ref.workItemId} is known on this process's connection to ${where}; an MCP cancellation can only travel on the connection that carried the request`);
        if (call.notSent !== null || call.answer !== null) return; // nothing left to cancel
        if (call.connectionClosedAt !== null) throw new Error(`the connection to ${where} closed before it answered; the cancellation cannot be sent`);
        observer.controllerOf(call).abort(new Error("Stopline: the task was stopped"));
        await observer.cancelDelivered(call, 5_000);
        if (call.cancelSendError) throw new Error(`notifications/cancelled could not be sent: ${call.cancelSendError}`);
        if (call.cancelSentAt === null && call.answer === null) throw new Error("notifications/cancelled was not sent");
      },

      async inspect(ref) {
        const call = observer.find(ref);
        if (!call) {
          return { status: "unknown", reason: `this process has no record of the call (MCP offers no way to ask ${where} about an earlier call; it can only be observed on the connection that carried it)` };
        }
        if (call.cancelSentAt !== null && call.answer === null && call.connectionClosedAt === null) {
          await observer.waitForAnswer(call, call.cancelSentAt + o.confirmGraceMs);
        }
        return outcomeOf(call, o.confirmGraceMs);
      },

      describeEffect: (effect) => effect.description ?? `MCP ${where} (${effect.operationId})`,
    };
    return tool;
  });

  return {
    tools,
    server,
    observation: (workItemId) => {
      const call = observer.byWorkItem.get(workItemId);
      if (!call) return undefined;
      const { controller: _controller, cancelSending: _sending, ...seen } = call;
      return structuredClone(seen);
    },
    stderr,
    close: () => client.close(),
  };
}

/** The table in the header, as code: what the observation of one call allows Stopline to say. */
export function outcomeOf(call: McpCallObservation, graceMs: number, now = Date.now()): InspectOutcome {
  if (call.answer?.kind === "result" && !call.answer.isError) {
    return { status: "committed", result: call.answer.result, description: `${call.tool} answered with a result${call.answer.afterCancel ? " after the cancellation was sent" : ""}` };
  }
  if (call.answer) return { status: "not_committed" };
  if (call.notSent !== null) return { status: "not_committed" };
  if (call.connectionClosedAt !== null) {
    return { status: "unknown", reason: `the connection closed before the server answered${call.cancelSentAt !== null ? " (cancellation sent but not confirmed)" : ""}` };
  }
  if (call.cancelSentAt === null) return { status: "running" };
  const progressing = call.progressAfterCancel > 0 && call.lastProgress !== null && now - call.lastProgress.at < graceMs;
  if (progressing) return { status: "running" };
  const sent = new Date(call.cancelSentAt).toISOString();
  const after =
    call.progressAfterCancel > 0
      ? `; progress continued ${call.progressAfterCancel} time(s) after the cancel (last at ${new Date(call.lastProgress!.at).toISOString()}: ${call.lastProgress!.progress}${call.lastProgress!.total !== undefined ? `/${call.lastProgress!.total}` : ""}), then stopped without a result`
      : "; no progress since";
  return { status: "unknown", reason: `cancellation sent but not confirmed: notifications/cancelled went out at ${sent} and the server has not answered the request${after}` };
}

const textOf = (result: CallToolResult) =>
  (result.content ?? []).map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join(" ").slice(0, 500) || "(no text)";

// ---- observation ---------------------------------------------------------------------------------

interface OpenCall extends McpCallObservation {
  controller?: AbortController;
  cancelSending?: Promise<void>;
}

/** Keeps one observation per call, fed by every message in and out of the connection. */
class CallObserver {
  readonly byWorkItem = new Map<string, OpenCall>();
  readonly #byCallId = new Map<string, OpenCall>();
  readonly #byRequestId = new Map<string, OpenCall>();
  readonly #waiters = new Set<() => void>();
  #next = 0;

  constructor(private readonly max: number) {}

  open(workItemId: string, tool: string): OpenCall {
    const call: OpenCall = {
      workItemId, callId: `${workItemId}:${++this.#next}`, tool, requestId: null, sentAt: null, notSent: null,
      lastProgress: null, progressCount: 0, cancelSentAt: null, cancelReason: null, cancelSendError: null, progressAfterCancel: 0,
      answer: null, connectionClosedAt: null,
    };
    this.byWorkItem.delete(workItemId); // a re-run of the item replaces its earlier record
    this.byWorkItem.set(workItemId, call);
    this.#byCallId.set(call.callId, call);
    while (this.byWorkItem.size > this.max) {
      const [oldest] = this.byWorkItem.values();
      this.forget(oldest);
    }
    return call;
  }

  find(ref: CallRef): OpenCall | undefined {
    return (ref.providerRef ? this.#byCallId.get(ref.providerRef) : undefined) ?? this.byWorkItem.get(ref.workItemId);
  }

  controllerOf(call: OpenCall): AbortController {
    return (call.controller ??= new AbortController());
  }

  outgoing(message: JSONRPCMessage): (outcome: { error?: unknown }) => void {
    if (isJSONRPCRequest(message) && message.method === "tools/call") {
      const callId = (message.params?._meta as Record<string, unknown> | undefined)?.[CALL_META_KEY];
      const call = typeof callId === "string" ? this.#byCallId.get(callId) : undefined;
      if (call) {
        call.requestId = message.id;
        call.sentAt = Date.now();
        this.#byRequestId.set(String(message.id), call);
        return ({ error }) => {
          if (error !== undefined && call.answer === null) call.notSent ??= `the transport could not send the request: ${String(error)}`;
          this.#changed();
        };
      }
    }
    if (isJSONRPCNotification(message) && message.method === "notifications/cancelled") {
      const call = this.#byRequestId.get(String((message.params as { requestId?: unknown } | undefined)?.requestId));
      if (call) {
        call.cancelSentAt ??= Date.now();
        call.cancelReason ??= String((message.params as { reason?: unknown }).reason ?? "");
        let done!: () => void;
        call.cancelSending = new Promise<void>((resolve) => (done = resolve));
        return ({ error }) => {
          if (error !== undefined) call.cancelSendError = String(error);
          done();
          this.#changed();
        };
      }
    }
    return () => {};
  }

  incoming(message: JSONRPCMessage) {
    const now = Date.now();
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      const call = this.#byRequestId.get(String(message.id));
      if (call && call.answer === null) {
        const afterCancel = call.cancelSentAt !== null;
        call.answer = isJSONRPCResultResponse(message)
          ? { at: now, afterCancel, kind: "result", result: message.result as CallToolResult, isError: (message.result as CallToolResult).isError === true }
          : { at: now, afterCancel, kind: "error", error: { code: message.error.code, message: message.error.message, data: message.error.data } };
        this.#changed();
      }
      return;
    }
    if (isJSONRPCNotification(message) && message.method === "notifications/progress") {
      const p = message.params as { progressToken?: unknown; progress?: number; total?: number; message?: string };
      const call = this.#byRequestId.get(String(p.progressToken));
      if (call && call.answer === null) {
        call.lastProgress = { progress: Number(p.progress), total: p.total, message: p.message, at: now };
        call.progressCount++;
        if (call.cancelSentAt !== null) call.progressAfterCancel++;
        this.#changed();
      }
    }
  }

  closed() {
    const now = Date.now();
    for (const call of this.byWorkItem.values()) if (call.answer === null && call.notSent === null && call.connectionClosedAt === null) call.connectionClosedAt = now;
    this.#changed();
  }

  async cancelDelivered(call: OpenCall, timeoutMs: number) {
    if (!call.cancelSending) return;
    await Promise.race([call.cancelSending, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
  }

  /** Resolves when the call has an answer or its connection closed, or at `until` (ms since epoch). */
  async waitForAnswer(call: OpenCall, until: number) {
    while (call.answer === null && call.connectionClosedAt === null && Date.now() < until) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(wake, Math.max(0, until - Date.now()));
        const self = this;
        function wake() {
          clearTimeout(timer);
          self.#waiters.delete(wake);
          resolve();
        }
        this.#waiters.add(wake);
      });
    }
  }

  forget(call: OpenCall) {
    this.byWorkItem.delete(call.workItemId);
    this.#byCallId.delete(call.callId);
    if (call.requestId !== null) this.#byRequestId.delete(String(call.requestId));
  }

  #changed() {
    for (const wake of [...this.#waiters]) wake();
  }
}

/** A pass-through transport that shows every message in and out to the observer first. */
class ObservingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];

  constructor(
    private readonly inner: Transport,
    private readonly observer: CallObserver,
  ) {
    inner.onmessage = (message, extra) => {
      observer.incoming(message);
      this.onmessage?.(message, extra);
    };
    inner.onclose = () => {
      observer.closed();
      this.onclose?.();
    };
    inner.onerror = (error) => this.onerror?.(error);
  }

  get sessionId() {
    return this.inner.sessionId;
  }

  setProtocolVersion(version: string) {
    this.inner.setProtocolVersion?.(version);
  }

  start() {
    return this.inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions) {
    const settle = this.observer.outgoing(message);
    try {
      await this.inner.send(message, options);
      settle({});
    } catch (error) {
      settle({ error });
      throw error;
    }
  }

  close() {
    return this.inner.close();
  }
}
