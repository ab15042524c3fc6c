/**
 * `npx stopline-mcp-stdio` — Stopline's MCP gateway for MCP clients that launch a command (MCP Inspector over
 * stdio, IDEs, desktop assistants). Environment: STOPLINE_TOKEN (an agent token; required), STOPLINE_URL (default
 * http://localhost:3000) or STOPLINE_MCP_URL (the gateway's URL itself, default `${STOPLINE_URL}/api/mcp`).
 *
 *   STOPLINE_TOKEN=<agent token> npx @modelcontextprotocol/inspector npx stopline-mcp-stdio
 */
import { startRelay } from "./relay";

const env = process.env;
const url = env.STOPLINE_MCP_URL || `${(env.STOPLINE_URL || "http://localhost:3000").replace(/\/+$/, "")}/api/mcp`;
const token = env.STOPLINE_TOKEN;
if (!token) {
  process.stderr.write(
    "stopline-mcp-stdio: STOPLINE_TOKEN is not set — create an agent token in Stopline: npm run token:create -- --role agent --name my-ide\n",
  );
  process.exit(2);
}
startRelay({ url, token, onError: (error) => process.stderr.write(`stopline-mcp-stdio: ${error.message}\n`) }).then(
  (relay) => {
    process.stderr.write(`stopline-mcp-stdio: relaying stdio to ${url}\n`);
    void relay.closed.then(() => process.exit(0));
  },
  (error: Error) => {
    process.stderr.write(`stopline-mcp-stdio: could not start: ${error.message}\n`);
    process.exit(1);
  },
);
