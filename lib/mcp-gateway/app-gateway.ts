import { existsSync } from "node:fs";
import path from "node:path";
import { authenticateToken } from "../auth/tokens";
import { db } from "../db/client";
import { PROJECT_ROOT } from "../db/config";
import { appRegistry } from "../runtime/app-registry";
import { loadGatewayConfig } from "./config";
import { McpGateway } from "./gateway";
import { createGatewayHttpHandler } from "./http";

/**
 * The gateway as the app runs it: started in the app process (beside the cancellation engine, whose registry
 * gets its tools) when a config file exists — STOPLINE_MCP_CONFIG, or `stopline.mcp.json` in the project
 * folder — and served at /api/mcp (app/api/mcp/route.ts) to clients with an admin or agent API token.
 */
const globalForGateway = globalThis as unknown as {
  stoplineGateway?: Promise<{ gateway: McpGateway; handle: (request: Request) => Promise<Response> } | null>;
};

export function gatewayConfigPath(): string | null {
  const configured = process.env.STOPLINE_MCP_CONFIG?.trim();
  const file = path.resolve(PROJECT_ROOT, configured || "stopline.mcp.json");
  return existsSync(file) ? file : null;
}

export function appGateway() {
  return (globalForGateway.stoplineGateway ??= (async () => {
    const file = gatewayConfigPath();
    if (!file) return null;
    const database = db();
    const gateway = await McpGateway.start({ database, registry: appRegistry(), config: loadGatewayConfig(file) });
    const handle = createGatewayHttpHandler(gateway, {
      allowedHosts: (process.env.STOPLINE_MCP_ALLOWED_HOSTS ?? "")
        .split(",")
        .map((h) => h.trim())
        .filter(Boolean),
      async authenticate(request) {
        const match = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "");
        const principal = match ? await authenticateToken(database, match[1]) : null;
        return principal && (principal.role === "admin" || principal.role === "agent") ? { id: principal.id, name: principal.name } : null;
      },
    });
    console.log(`[stopline] MCP gateway at /api/mcp: ${gateway.tools.size} tools from ${file}`);
    return { gateway, handle };
  })().catch((error) => {
    console.error("[stopline] the MCP gateway could not start:", error);
    globalForGateway.stoplineGateway = undefined;
    return null;
  }));
}
