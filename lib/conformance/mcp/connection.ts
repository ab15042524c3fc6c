import {
  Client,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  StreamableHTTPClientTransport,
  type JSONRPCMessage,
  type Transport,
  type TransportSendOptions,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { TASKS_EXTENSION } from "../../tools/adapters/mcp";

/**
 * One connection of the pack to the server under test, at one spec revision, with the official SDK 2.x client
 * (`@modelcontextprotocol/client`): 2025-11-25 = the initialize handshake (cancel = `notifications/cancelled`),
 * 2026-07-28 = pinned (on Streamable HTTP the SDK cancels by closing the call's response stream).
 *
 * Every message in and out passes an observer first: the SDK drops an answer to a request it cancelled, but the
 * pack must see what the server told the client even then. Over HTTP a fetch wrapper can also drop one call's
 * response stream without the SDK knowing (a network drop: no notifications/cancelled).
 */
export type Revision = "2025-11-25" | "2026-07-28";
export const REVISIONS: readonly Revision[] = ["2025-11-25", "2026-07-28"];
export type Target = { url: string } | { command: string; args: string[] };

/** `http(s)://…` is a Streamable HTTP endpoint; anything else is a stdio command line (split on spaces). */
export function parseTarget(text: string): Target {
  if (/^https?:\/\//.test(text)) return { url: text };
  const [command, ...args] = text.trim().split(/\s+/);
  return { command, args };
}

export const CALL_TAG = "dev.stopline/conformance-call";

export interface SeenCall {
  tag: string;
  requestId: string | number | null;
  sentAt: number | null;
  /** What the server answered (also after a cancel, when the SDK itself no longer listens). */
  answer: { at: number; raw: Record<string, unknown> | null; error: { code: number; message: string } | null } | null;
  progress: { progress: number; total?: number; at: number }[];
  /** The server's task handle, if it answered with one. */
  task: { taskId: string; status: string } | null;
}

export class Observer {
  readonly calls = new Map<string, SeenCall>();
  readonly #byId = new Map<string, SeenCall>();
  #waiters = new Set<() => void>();
  #n = 0;

  open(): SeenCall {
    const call: SeenCall = { tag: `c${++this.#n}-${Date.now()}`, requestId: null, sentAt: null, answer: null, progress: [], task: null };
    this.calls.set(call.tag, call);
    return call;
  }

  out(message: JSONRPCMessage) {
    if (isJSONRPCRequest(message) && message.method === "tools/call") {
      const tag = (message.params?._meta as Record<string, unknown> | undefined)?.[CALL_TAG];
      const call = typeof tag === "string" ? this.calls.get(tag) : undefined;
      if (call) {
        call.requestId = message.id;
        call.sentAt = Date.now();
        this.#byId.set(String(message.id), call);
        this.#changed();
      }
    }
  }

  in(message: JSONRPCMessage) {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      const call = this.#byId.get(String(message.id));
      if (!call || call.answer) return;
      const raw = isJSONRPCResultResponse(message) ? (message.result as Record<string, unknown>) : null;
      const handle = (raw?.task as Record<string, unknown> | undefined) ?? (raw?.resultType === "task" ? raw : undefined);
      if (handle && typeof handle.taskId === "string") call.task = { taskId: handle.taskId, status: String(handle.status ?? "working") };
      else call.answer = { at: Date.now(), raw, error: isJSONRPCErrorResponse(message) ? { code: message.error.code, message: message.error.message } : null };
      this.#changed();
    } else if (isJSONRPCNotification(message) && message.method === "notifications/progress") {
      const p = message.params as { progressToken?: unknown; progress?: number; total?: number };
      const call = this.#byId.get(String(p.progressToken));
      if (call) {
        call.progress.push({ progress: Number(p.progress), total: p.total, at: Date.now() });
        this.#changed();
      }
    }
  }

  /** Resolves when `done()` holds or at `until` (ms since the epoch); true if it held. */
  async until(done: () => boolean, until: number): Promise<boolean> {
    while (!done() && Date.now() < until) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(wake, Math.max(0, until - Date.now()));
        const waiters = this.#waiters;
        function wake() {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve();
        }
        waiters.add(wake);
      });
    }
    return done();
  }

  #changed() {
    for (const wake of [...this.#waiters]) wake();
  }
}

class ObservingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];
  constructor(
    private readonly inner: Transport,
    private readonly observer: Observer,
  ) {
    inner.onmessage = (message, extra) => {
      observer.in(message);
      this.onmessage?.(message, extra);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
  }
  get sessionId() {
    return this.inner.sessionId;
  }
  get hasPerRequestStream() {
    return this.inner.hasPerRequestStream;
  }
  setProtocolVersion(version: string) {
    this.inner.setProtocolVersion?.(version);
  }
  setSupportedProtocolVersions(versions: string[]) {
    this.inner.setSupportedProtocolVersions?.(versions);
  }
  start() {
    return this.inner.start();
  }
  async send(message: JSONRPCMessage, options?: TransportSendOptions) {
    this.observer.out(message);
    await this.inner.send(message, options);
  }
  close() {
    return this.inner.close();
  }
}

export interface Connection {
  client: Client;
  observer: Observer;
  revision: Revision;
  http: boolean;
  /** The server's capabilities (tasks: `extensions[io.modelcontextprotocol/tasks]`, or 2025-11-25's `tasks.requests.tools.call`). */
  tasks: "extension" | "core" | null;
  /** Drops the HTTP response stream of the call with this tag, as a network failure would (HTTP only). */
  dropStream(tag: string): boolean;
  close(): Promise<void>;
}

export async function connect(target: Target, revision: Revision, options: { stderr?: "ignore" | "inherit" } = {}): Promise<Connection> {
  const observer = new Observer();
  const streams = new Map<string, AbortController>();
  let inner: Transport;
  if ("url" in target) {
    // The pack's own hold on each tools/call response stream, beside the SDK's: aborting it is a dropped connection.
    const fetchWithDrop = async (url: string | URL, init?: RequestInit) => {
      const tag =
        typeof init?.body === "string" && init.body.includes(CALL_TAG)
          ? (JSON.parse(init.body) as { params?: { _meta?: Record<string, unknown> } }).params?._meta?.[CALL_TAG]
          : undefined;
      if (typeof tag !== "string") return fetch(url, init);
      const drop = new AbortController();
      streams.set(tag, drop);
      const signal = init?.signal ? AbortSignal.any([init.signal, drop.signal]) : drop.signal;
      return fetch(url, { ...init, signal });
    };
    inner = new StreamableHTTPClientTransport(new URL(target.url), {
      fetch: fetchWithDrop,
      reconnectionOptions: { initialReconnectionDelay: 100, maxReconnectionDelay: 500, reconnectionDelayGrowFactor: 1.5, maxRetries: 3 },
    } as never);
  } else {
    inner = new StdioClientTransport({ command: target.command, args: target.args, stderr: options.stderr ?? "ignore" });
  }
  const client = new Client({ name: "stopline-mcp-conformance", version: "0.1.0" }, {
    versionNegotiation: { mode: revision === "2025-11-25" ? "legacy" : { pin: revision } },
    capabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  } as ConstructorParameters<typeof Client>[1]);
  client.onerror = (e) => {
    if (process.env.MCP_CONFORMANCE_DEBUG) console.error("[client]", e.message);
  }; // answers to cancelled requests land here; the observer has them
  await client.connect(new ObservingTransport(inner, observer), { timeout: 15_000 } as never);
  const caps = (client.getServerCapabilities() ?? {}) as { extensions?: Record<string, unknown>; tasks?: { requests?: { tools?: { call?: unknown } } } };
  return {
    client,
    observer,
    revision,
    http: "url" in target,
    tasks: caps.extensions?.[TASKS_EXTENSION] ? "extension" : caps.tasks?.requests?.tools?.call ? "core" : null,
    dropStream: (tag) => {
      const s = streams.get(tag);
      s?.abort(new Error("conformance: the response stream was dropped"));
      return !!s;
    },
    close: () => client.close(),
  };
}
