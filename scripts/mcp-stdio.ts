/** npm run mcp:stdio — the MCP gateway over stdio for clients that launch a command: the SDK's `stopline-mcp-stdio` (lib/sdk/bin/mcp-stdio.ts), run from source. */
import "../lib/sdk/bin/mcp-stdio";
