/**
 * The app's server process without Next.js, for tests that kill and restart it (crash-mid-cancellation.int.test.ts):
 * what `instrumentation.ts` starts in the server process — the background runtime (cancellation engine, live view,
 * in-process worker pool, maintenance when it leads) and the demo services on STOPLINE_DEMO_PORT with their store in
 * STOPLINE_DEMO_DB — plus the real route handlers over HTTP (test/support/http-api-server.ts) on a free port.
 * Prints one line {"url": …, "demo": …} when it answers. The database is DATABASE_URL.
 */
import { startBackground, startDemoServices } from "../../lib/runtime/background";
import { startHttpApiServer } from "./http-api-server";

startBackground();
const demo = await startDemoServices();
const server = await startHttpApiServer();
console.log(JSON.stringify({ url: server.url, demo: demo?.url ?? null, pid: process.pid }));
process.on("SIGTERM", () => process.exit(0));
