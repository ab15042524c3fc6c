import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type CallToolResult,
  type JSONRPCMessage,
  type Transport,
  type TransportSendOptions,
} from "@modelcontextprotocol/client";
import type { CallRef } from "../contract";

/**
 * What the MCP adapter saw of each call on the connection that carried it — requests, progress, cancellations,
 * answers, tasks — the evidence its inspect() reports from (mcp.ts: the adapter; mcp-mapping.ts: evidence → outcome).
 */

/** The `_meta` key that tags Stopline's calls so the adapter can find their JSON-RPC id on the wire. */
export const CALL_META_KEY = "dev.stopline/tool-call-id";

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
  /** How the cancellation travelled: `notifications/cancelled` (2025-11-25), the response stream closed (2026-07-28), or `tasks/cancel` (tasks extension). */
  cancelKind: "notification" | "stream_closed" | "tasks_cancel" | null;
  /** The protocol era of the connection that carried the call. */
  era: "legacy" | "modern" | null;
  /** Tasks extension: the task the server created for this call, as last observed by tasks/get. */
  task: {
    taskId: string;
    status: string;
    statusMessage?: string;
    pollIntervalMs?: number;
    observedAt: number;
    result?: CallToolResult;
    error?: unknown;
    cancelAckAt: number | null;
  } | null;
}

// ---- observation ---------------------------------------------------------------------------------

export interface OpenCall extends McpCallObservation {
  controller?: AbortController;
  cancelSending?: Promise<void>;
}

/** Keeps one observation per call, fed by every message in and out of the connection. */
export class CallObserver {
  readonly byWorkItem = new Map<string, OpenCall>();
  readonly #byCallId = new Map<string, OpenCall>();
  readonly #byRequestId = new Map<string, OpenCall>();
  readonly #waiters = new Set<() => void>();
  #next = 0;
  era: "legacy" | "modern" | null = null;
  readonly #progressListeners = new Map<string, Set<(p: McpProgress) => void>>();

  onProgress(workItemId: string, listener: (p: McpProgress) => void): () => void {
    const set = this.#progressListeners.get(workItemId) ?? new Set();
    set.add(listener);
    this.#progressListeners.set(workItemId, set);
    return () => {
      set.delete(listener);
      if (!set.size) this.#progressListeners.delete(workItemId);
    };
  }

  constructor(private readonly max: number) {}

  open(workItemId: string, tool: string): OpenCall {
    const call: OpenCall = {
      workItemId,
      callId: `${workItemId}:${++this.#next}`,
      tool,
      requestId: null,
      sentAt: null,
      notSent: null,
      lastProgress: null,
      progressCount: 0,
      cancelSentAt: null,
      cancelReason: null,
      cancelSendError: null,
      progressAfterCancel: 0,
      answer: null,
      connectionClosedAt: null,
      cancelKind: null,
      era: this.era,
      task: null,
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

  outgoing(message: JSONRPCMessage, options?: TransportSendOptions): (outcome: { error?: unknown }) => void {
    if (isJSONRPCRequest(message) && message.method === "tools/call") {
      const callId = (message.params?._meta as Record<string, unknown> | undefined)?.[CALL_META_KEY];
      const call = typeof callId === "string" ? this.#byCallId.get(callId) : undefined;
      if (call) {
        call.requestId = message.id;
        call.sentAt = Date.now();
        this.#byRequestId.set(String(message.id), call);
        // 2026-07-28 over Streamable HTTP: the SDK cancels by aborting this request's stream (no message is sent).
        options?.requestSignal?.addEventListener(
          "abort",
          () => {
            if (call.answer !== null || call.task) return;
            call.cancelSentAt ??= Date.now();
            call.cancelKind ??= "stream_closed";
            call.cancelReason ??= String(options.requestSignal?.reason ?? "");
            this.#changed();
          },
          { once: true },
        );
        return ({ error }) => {
          // On a per-request stream (2026-07-28 HTTP) the send lasts as long as the response stream: its end by our
          // own abort is the cancellation, not a failure to send (the server may well have started the call).
          if (error !== undefined && call.answer === null && call.cancelKind !== "stream_closed")
            call.notSent ??= `the transport could not send the request: ${String(error)}`;
          this.#changed();
        };
      }
    }
    if (isJSONRPCNotification(message) && message.method === "notifications/cancelled") {
      const call = this.#byRequestId.get(String((message.params as { requestId?: unknown } | undefined)?.requestId));
      if (call) {
        call.cancelSentAt ??= Date.now();
        call.cancelKind ??= "notification";
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
      const raw = isJSONRPCResultResponse(message) ? (message.result as Record<string, unknown>) : null;
      if (call && call.answer === null && raw?.resultType === "task" && typeof raw.taskId === "string") {
        // Tasks extension: not an answer — a handle to follow with tasks/get.
        call.task = {
          taskId: raw.taskId,
          status: String(raw.status ?? "working"),
          statusMessage: raw.statusMessage as string | undefined,
          pollIntervalMs: raw.pollIntervalMs as number | undefined,
          observedAt: now,
          cancelAckAt: null,
        };
        this.#changed();
        return;
      }
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
        for (const listener of this.#progressListeners.get(call.workItemId) ?? []) {
          try {
            listener(call.lastProgress);
          } catch {
            /* a listener's failure is not the call's */
          }
        }
        this.#changed();
      }
    }
  }

  closed() {
    const now = Date.now();
    for (const call of this.byWorkItem.values())
      if (call.answer === null && call.notSent === null && call.connectionClosedAt === null) call.connectionClosedAt = now;
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
export class ObservingTransport implements Transport {
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

  get hasPerRequestStream() {
    return this.inner.hasPerRequestStream;
  }

  setSupportedProtocolVersions(versions: string[]) {
    this.inner.setSupportedProtocolVersions?.(versions);
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions) {
    const settle = this.observer.outgoing(message, options);
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
