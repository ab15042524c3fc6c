/** npm run mcp:stdio — the MCP gateway over stdio for clients that launch a command (lib/mcp-gateway/stdio-bridge.ts). */
import { startStdioBridge } from "../lib/mcp-gateway/stdio-bridge";

const url = process.env.STOPLINE_MCP_URL ?? `${process.env.STOPLINE_URL ?? "http://localhost:3000"}/api/mcp`;
const token = process.env.STOPLINE_TOKEN;
if (!token) {
  console.error("STOPLINE_TOKEN is not set: create an agent token with  npm run token:create -- --role agent --name my-ide");
  process.exit(2);
}
startStdioBridge({ url, token }).then(
  (bridge) => console.error(`[stopline] MCP gateway on stdio → ${url} (session ${bridge.session})`),
  (error) => {
    console.error(`[stopline] could not reach the MCP gateway at ${url}: ${(error as Error).message}`);
    process.exit(1);
  },
);
