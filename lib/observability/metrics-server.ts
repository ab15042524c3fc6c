import { createServer, type Server } from "node:http";
import type { Database } from "../db/client";
import { renderMetrics } from "./scrape";

/**
 * STOPLINE_METRICS_PORT: /metrics on a listener of its own, without a token, bound to STOPLINE_METRICS_HOST
 * (default 127.0.0.1: only this machine; a Prometheus elsewhere needs the operator to bind it to an address it
 * reaches, e.g. a private interface). Every process can have one — app instances and `npm run worker` processes,
 * whose counters (tool calls started, Stops settled) exist only there — each on its own port.
 */
export function startMetricsServer(database: Database | null, options: { port?: number; host?: string } = {}): Promise<{ server: Server; url: string } | null> {
  const port = options.port ?? Number(process.env.STOPLINE_METRICS_PORT ?? 0);
  if (!port) return Promise.resolve(null);
  const host = options.host ?? process.env.STOPLINE_METRICS_HOST ?? "127.0.0.1";
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "GET" || path !== "/metrics") {
      res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("Stopline metrics: GET /metrics\n");
      return;
    }
    renderMetrics(database).then(
      ({ body, contentType }) => res.writeHead(200, { "Content-Type": contentType, "Cache-Control": "no-store" }).end(body),
      (error) => res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" }).end(`metrics failed: ${(error as Error).message}\n`),
    );
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.unref();
      resolve({ server, url: `http://${host.includes(":") ? `[${host}]` : host}:${port}/metrics` });
    });
  });
}
