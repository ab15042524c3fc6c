/**
 * The gateway for MCP clients that launch a command (IDEs, desktop assistants): a stdio MCP server that forwards
 * tools/list and tools/call to the app's gateway endpoint (/api/mcp) over Streamable HTTP, 2026-07-28 when the app
 * offers it. All calls of one bridge process are one client session (one task): the bridge sends its own
 * `_meta["dev.stopline/session"]`. The IDE's cancel (`notifications/cancelled`) aborts the forwarded call, which
 * closes its response stream — the gateway's Stop of that call. Progress comes back as progress.
 *
 *   STOPLINE_MCP_URL=http://localhost:3000/api/mcp STOPLINE_TOKEN=<agent token> npm run mcp:stdio
 */
import { randomUUID } from "node:crypto";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { SESSION_META_KEY } from "./http";

export async function startStdioBridge(options: { url: string; token: string; session?: string }) {
  const upstream = new Client({ name: "stopline-stdio-bridge", version: "0.1.0" }, { versionNegotiation: { mode: "auto" } });
  await upstream.connect(new StreamableHTTPClientTransport(new URL(options.url), { requestInit: { headers: { authorization: `Bearer ${options.token}` } } }));
  const session = options.session ?? randomUUID();
  const handle = serveStdio(() => {
    const server = new McpServer({ name: "stopline-mcp-gateway", version: "0.1.0" }, { capabilities: { tools: {} } });
    const low = server.server as unknown as { setRequestHandler(method: string, handler: (request: any, ctx: any) => Promise<unknown>): void };
    low.setRequestHandler("tools/list", async () => ({ tools: (await upstream.listTools()).tools }));
    low.setRequestHandler("tools/call", async (request, ctx) => {
      const progressToken = ctx.mcpReq?._meta?.progressToken;
      return upstream.callTool(
        { name: request.params.name, arguments: request.params.arguments ?? {}, _meta: { [SESSION_META_KEY]: session } },
        {
          signal: ctx.mcpReq.signal,
          timeout: 24 * 60 * 60_000,
          resetTimeoutOnProgress: true,
          ...(progressToken !== undefined ? { onprogress: (p: { progress: number; total?: number; message?: string }) => void ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken, ...p } }).catch(() => {}) } : {}),
        },
      );
    });
    return server;
  });
  return { session, close: async () => { await handle.close(); await upstream.close(); } };
}
