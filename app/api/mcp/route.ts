import { appGateway } from "@/lib/mcp-gateway/app-gateway";

// The MCP gateway's Streamable HTTP endpoint (both protocol eras); see lib/mcp-gateway/http.ts.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

async function handle(request: Request): Promise<Response> {
  const running = await appGateway();
  if (!running) {
    return Response.json(
      {
        jsonrpc: "2.0",
        error: {
          code: -32603,
          message: "the MCP gateway is not configured: create stopline.mcp.json (see stopline.mcp.example.json) or set STOPLINE_MCP_CONFIG",
        },
        id: null,
      },
      { status: 503 },
    );
  }
  return running.handle(request);
}

export const GET = handle;
export const POST = handle;
export const DELETE = handle;
