import { createApiToken } from "../../../lib/auth/tokens";
import { CancellationEngine } from "../../../lib/cancellation/engine";
import { isTerminalItem } from "../../../lib/ledger/states";
import { startHttpApiServer, type HttpApiServer } from "../http-api-server";
import { createOrderTool, startOrderService, type OrderService } from "../http-order-service";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { appRegistry } from "../../../lib/runtime/app-registry";
import { attachHostedTools } from "../../../lib/tools/hosted/hosted-tools";
import { ToolRegistry } from "../../../lib/tools/registry";
import { StoplineClient } from "../../../lib/sdk/client";

/**
 * The app as an SDK user meets it, in the test process: a fresh database (installed for the route handlers),
 * the real route handlers behind a real HTTP server, the cancellation engine with a fast maintenance pass
 * (lease recovery, reconciliation), and the order service as the authoritative record of external actions —
 * its tool registered in the engine's registry so that reconciliation can inspect() it. No worker pool runs
 * here: work items are run by worker processes over HTTP.
 */
export interface SdkTestServer {
  t: TestDatabase;
  http: HttpApiServer;
  service: OrderService;
  engine: CancellationEngine;
  tokens: { agent: string; worker: string; admin: string };
  agent: StoplineClient;
  worker: StoplineClient;
  close(): Promise<void>;
}

export async function startSdkTestServer(): Promise<SdkTestServer> {
  const [t, service] = await Promise.all([createTestDatabase(), startOrderService()]);
  t.install();
  const registry = new ToolRegistry().register(createOrderTool(service.url));
  // Tools run by SDK processes (workers, AI SDK agents) and answered for by them (issue 23): lib/tools/hosted.
  // The app's own registry too: the review-decision route (an approved compensation) looks tools up there.
  const hosted = [attachHostedTools(registry, t.database), attachHostedTools(appRegistry(), t.database)];
  const engine = new CancellationEngine(t.database, { registry, verifyDelayMs: 50 }).start(200);
  const http = await startHttpApiServer();
  const tokens = {
    agent: (await createApiToken(t.database, { name: "sdk-agent", role: "agent" })).token,
    worker: (await createApiToken(t.database, { name: "sdk-worker", role: "worker" })).token,
    admin: (await createApiToken(t.database, { name: "sdk-admin", role: "admin" })).token,
  };
  const retry = { baseDelayMs: 50, maxDelayMs: 500 };
  return {
    t,
    http,
    service,
    engine,
    tokens,
    agent: new StoplineClient({ baseUrl: http.url, token: tokens.agent, retry }),
    worker: new StoplineClient({ baseUrl: http.url, token: tokens.worker, retry }),
    async close() {
      for (const h of hosted) h.stop();
      await engine.stop();
      await http.close();
      await service.close();
      await t.drop();
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` returns a value (not undefined), or fails with `what` after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 30_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

export const terminal = (status: string) => isTerminalItem(status);
