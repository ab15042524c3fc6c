// Next.js calls register() once when the server starts: the cancellation engine and the in-process worker
// pool live in the app process on the embedded default (see lib/runtime/background.ts).
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs" && process.env.STOPLINE_BACKGROUND !== "0") {
    const { startBackground, startDemoServices } = await import("./lib/runtime/background");
    startBackground();
    const demo = await startDemoServices().catch((error) => {
      console.error("the demo services could not start (is the port taken? set STOPLINE_DEMO_PORT)", error);
      return null;
    });
    if (demo) console.log(`[stopline] demo services (shop, crm, mailer, reports, inference) at ${demo.url}`);
    // The MCP gateway (stopline.mcp.json or STOPLINE_MCP_CONFIG): its tools join the engine's registry at start-up.
    const { appGateway } = await import("./lib/mcp-gateway/app-gateway");
    await appGateway();
  }
}
