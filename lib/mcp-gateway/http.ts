import { randomUUID } from "node:crypto";
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  isLegacyRequest,
  localhostAllowedHostnames,
  originValidationResponse,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { McpGateway, SessionRef } from "./gateway";

/**
 * The gateway's Streamable HTTP endpoint (one `(Request) => Response` for GET, POST and DELETE), serving both
 * protocol eras on one URL:
 *
 * - 2026-07-28 (modern, per request, no sessions): createMcpHandler. A call's cancellation is its client closing
 *   the response stream; the SDK aborts the handler's signal and the gateway stops that call. The "session"
 *   whose task a call joins is the principal + the client's name from the request envelope + the optional
 *   `_meta["dev.stopline/session"]` (a client that wants one task per conversation sends it).
 * - 2025-11-25 and earlier (legacy): SESSIONFUL Streamable HTTP (Mcp-Session-Id), so that a
 *   `notifications/cancelled` reaches the session that runs the call; one task per session, completed when the
 *   client ends the session (DELETE).
 *
 * Every request needs a principal (`authenticate`, e.g. a Bearer API token) and passes Host/Origin validation
 * (DNS rebinding): localhost names by default, more with `allowedHosts`.
 */
export interface GatewayPrincipal {
  /** The API token's id: an incident's kill switch on it refuses the client's calls (gateway.ts). */
  id: string;
  name: string;
}

export interface GatewayHttpOptions {
  authenticate(request: Request): Promise<GatewayPrincipal | null>;
  /** Extra Host / Origin hostnames accepted besides localhost, 127.0.0.1 and [::1]. */
  allowedHosts?: string[];
}

export const SESSION_META_KEY = "dev.stopline/session";

interface LegacySession {
  transport: WebStandardStreamableHTTPServerTransport;
  principalId: string;
  clientName: string;
}

export function createGatewayHttpHandler(gateway: McpGateway, options: GatewayHttpOptions) {
  const hosts = [...localhostAllowedHostnames(), ...(options.allowedHosts ?? [])];
  const legacySessions = new Map<string, LegacySession>();

  const modern = createMcpHandler(
    () =>
      gateway.buildServer((ctx: any): SessionRef => {
        const principal = ctx.http?.authInfo?.extra?.principal as GatewayPrincipal;
        const envelope = (ctx.mcpReq?.envelope ?? {}) as Record<string, any>;
        const client = String(envelope["io.modelcontextprotocol/clientInfo"]?.name ?? "client");
        const own = ctx.mcpReq?._meta?.[SESSION_META_KEY];
        const key = `modern:${principal.id}:${client}${typeof own === "string" && own ? `:${own}` : ""}`;
        return { key, ownerId: principal.name, clientName: client, actor: `mcp-client:${principal.name}`, tokenId: principal.id };
      }),
    { legacy: "reject" },
  );

  const jsonRpcError = (status: number, code: number, message: string) => Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });

  return async function handle(request: Request): Promise<Response> {
    const rejected = hostHeaderValidationResponse(request, hosts) ?? originValidationResponse(request, hosts);
    if (rejected) return rejected;
    const principal = await options.authenticate(request);
    if (!principal) return jsonRpcError(401, -32001, "Stopline MCP gateway: send Authorization: Bearer <API token> (an agent or admin token)");
    const authInfo = { token: "", clientId: principal.id, scopes: [], extra: { principal } };

    let parsedBody: unknown;
    if (request.method === "POST") {
      try {
        parsedBody = await request.clone().json();
      } catch {
        return jsonRpcError(400, -32700, "Parse error: the body is not JSON");
      }
    }
    const sessionId = request.headers.get("mcp-session-id");
    const legacy = sessionId !== null || (request.method !== "POST" ? true : await isLegacyRequest(request, parsedBody));
    if (!legacy) return modern.fetch(request, { authInfo, parsedBody });

    if (sessionId) {
      const session = legacySessions.get(sessionId);
      if (!session || session.principalId !== principal.id) return jsonRpcError(404, -32001, "Session not found");
      return session.transport.handleRequest(request, { parsedBody, authInfo });
    }
    const isInitialize = !Array.isArray(parsedBody) && (parsedBody as { method?: string } | undefined)?.method === "initialize";
    if (!isInitialize) return jsonRpcError(400, -32000, "Bad Request: Mcp-Session-Id required (send initialize first)");
    const clientName = String((parsedBody as { params?: { clientInfo?: { name?: string } } }).params?.clientInfo?.name ?? "client");
    let id = "";
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        id = sid;
        legacySessions.set(sid, { transport, principalId: principal.id, clientName });
      },
      onsessionclosed: (sid) => {
        legacySessions.delete(sid);
        void gateway.endSession(`legacy:${sid}`);
      },
    });
    transport.onclose = () => {
      if (id) {
        legacySessions.delete(id);
        void gateway.endSession(`legacy:${id}`);
      }
    };
    const server = gateway.buildServer(() => ({
      key: `legacy:${id}`,
      ownerId: principal.name,
      clientName,
      actor: `mcp-client:${principal.name}`,
      tokenId: principal.id,
    }));
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody, authInfo });
  };
}
