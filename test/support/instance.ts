/**
 * One Stopline process for the many-instances test (test/lib/runtime/many-instances.int.test.ts), started as its own
 * OS process on the database named by DATABASE_URL:
 *   app <name>     the background runtime of an app instance (cancellation engine, live view, maintenance when it
 *                  leads; no worker pool) and the real route handlers over HTTP; prints {"url": …} when it answers
 *   worker <name>  a worker process (worker pool of 4, live view, engine, maintenance when it leads), as
 *                  `npm run worker` runs; prints {"ready": true}
 * Both register the same tools: `multi.job` (a background job on the test's job server, MULTI_JOB_URL —
 * stopped by provider cancel) and `multi.cooperative` (runs until its AbortSignal fires).
 */
import { startBackground } from "../../lib/runtime/background";
import { appRegistry } from "../../lib/runtime/app-registry";
import { httpJobTool } from "../../lib/tools/adapters/http-job";
import { startHttpApiServer } from "./http-api-server";

const [role, name] = process.argv.slice(2);
process.env.STOPLINE_DEMO = "0";
const jobs = process.env.MULTI_JOB_URL!;
appRegistry()
  .register(
    httpJobTool({
      name: "multi.job",
      kind: "remote_tool",
      risk: "low",
      commitsEffect: false,
      startUrl: `${jobs}/jobs`,
      statusUrl: `${jobs}/jobs/{id}`,
      cancelUrl: `${jobs}/jobs/{id}/cancel`,
      lookupUrl: (key) => `${jobs}/jobs?idempotency_key=${encodeURIComponent(key)}`,
      pollMs: 50,
      requestTimeoutMs: 3_000,
    }),
  )
  .register({
    name: "multi.cooperative",
    kind: "local_worker",
    risk: "low",
    commitsEffect: false,
    mechanism: "abort_signal",
    run: (_input: unknown, ctx: { signal: AbortSignal }) =>
      new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true })),
  });

if (role === "app") {
  startBackground({ workers: 0 });
  const server = await startHttpApiServer();
  console.log(JSON.stringify({ name, url: server.url }));
} else {
  startBackground({ workers: 4, workerId: name });
  console.log(JSON.stringify({ name, ready: true }));
}
process.on("SIGTERM", () => process.exit(0));
