/**
 * The stdio ↔ Streamable HTTP relay behind `stopline-mcp-stdio`: MCP clients that launch a command and cannot send
 * an Authorization header (MCP Inspector over stdio, IDEs, desktop assistants) reach Stopline's MCP gateway
 * (`/api/mcp`) through it. Every JSON-RPC message passes through unchanged in both directions — on the MCP SDK's own
 * transports (StdioServerTransport, StreamableHTTPClientTransport), which speak both protocol eras: the
 * relay adds the API token, and the HTTP transport adds the session id and the per-request headers. Two things it
 * does on purpose:
 *
 * - a 2025-era client (initialize) gets one gateway session per relay process — one Stopline task — and its
 *   `notifications/cancelled` goes to that session, which stops the call;
 * - a 2026-07-28 client has no session: the relay names one (`_meta["dev.stopline/session"]`, one per process) so
 *   that its calls share a task, and turns its `notifications/cancelled` into what cancels a request on
 *   2026-07-28 HTTP — closing that request's response stream.
 */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";

/** The per-request envelope key of 2026-07-28 (its value is the protocol version). */
const PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion";
export const SESSION_META_KEY = "dev.stopline/session";

type Message = { jsonrpc: "2.0"; id?: string | number; method?: string; params?: Record<string, any>; result?: any; error?: unknown };

export interface RelayOptions {
  /** The gateway, e.g. http://localhost:3000/api/mcp. */
  url: string;
  /** An agent (or admin) API token. */
  token: string;
  /** The session name for 2026-07-28 calls (default: random, one per relay). */
  session?: string;
  /** Default: this process's stdin / stdout. */
  stdin?: NodeJS.ReadableStream & { on: (...a: any[]) => unknown };
  stdout?: NodeJS.WritableStream & { write: (...a: any[]) => boolean };
  onError?: (error: Error) => void;
}

export interface Relay {
  session: string;
  /** Resolves when the client closed stdin and the gateway session was ended. */
  closed: Promise<void>;
  close(): Promise<void>;
}

export async function startRelay(options: RelayOptions): Promise<Relay> {
  const session = options.session ?? globalThis.crypto.randomUUID();
  const http = new StreamableHTTPClientTransport(new URL(options.url), { requestInit: { headers: { authorization: `Bearer ${options.token}` } } });
  const stdio = new StdioServerTransport(options.stdin as never, options.stdout as never);
  const inFlight = new Map<string | number, { method: string; modern: boolean; controller: AbortController }>();
  const report = (error: unknown) => options.onError?.(error instanceof Error ? error : new Error(String(error)));
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));

  http.onmessage = (message: Message) => {
    if (message.id !== undefined && !message.method) {
      const request = inFlight.get(message.id);
      inFlight.delete(message.id);
      // After a 2025-era initialize every request carries MCP-Protocol-Version, as the MCP client would send it.
      if (request?.method === "initialize" && typeof message.result?.protocolVersion === "string") http.setProtocolVersion(message.result.protocolVersion);
    }
    stdio.send(message as never).catch(report);
  };
  http.onerror = report;
  stdio.onerror = report;

  stdio.onmessage = (message: Message) => {
    if (message.method && message.id !== undefined) {
      const version = message.params?._meta?.[PROTOCOL_VERSION_META];
      const modern = typeof version === "string" && version >= "2026";
      if (modern && message.method === "tools/call") message.params = { ...message.params, _meta: { ...message.params!._meta, [SESSION_META_KEY]: session } };
      const controller = new AbortController();
      const id = message.id;
      inFlight.set(id, { method: message.method, modern, controller });
      http.send(message as never, { requestSignal: controller.signal }).catch((error: Error) => {
        inFlight.delete(id);
        if (controller.signal.aborted) return; // cancelled by the client: no answer is due
        stdio
          .send({
            jsonrpc: "2.0",
            id,
            error: { code: -32603, message: `stopline-mcp-stdio: the gateway at ${options.url} did not answer: ${error.message}` },
          } as never)
          .catch(report);
      });
      return;
    }
    if (message.method === "notifications/cancelled") {
      const request = inFlight.get(message.params?.requestId);
      if (request?.modern) {
        // 2026-07-28 over HTTP: the client closing the request's response stream is the cancellation.
        inFlight.delete(message.params!.requestId);
        request.controller.abort(message.params?.reason ?? "cancelled by the client");
        return;
      }
    }
    http.send(message as never).catch(report);
  };

  const close = async () => {
    for (const r of inFlight.values()) r.controller.abort("the relay is closing");
    inFlight.clear();
    // A 2025-era session ends with DELETE: the gateway completes its task when nothing runs in it.
    if (http.sessionId) await http.terminateSession().catch(() => {});
    await http.close().catch(() => {});
    resolveClosed();
  };
  stdio.onclose = () => void close();
  await http.start();
  await stdio.start();
  return {
    session,
    closed,
    close: async () => {
      await stdio.close().catch(() => {});
      await close();
    },
  };
}
