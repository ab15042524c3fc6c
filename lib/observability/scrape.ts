import { createHash, timingSafeEqual } from "node:crypto";
import { authenticateToken } from "../auth/tokens";
import type { Database } from "../db/client";
import { readLedgerGauges } from "./ledger-gauges";
import { metrics } from "./metrics";

/**
 * GET /metrics — the Prometheus text exposition of this process (metrics.ts) and the ledger's gauges, for a scraper
 * that sends `Authorization: Bearer <STOPLINE_METRICS_TOKEN>` (a secret that opens nothing else; an admin API
 * token is accepted too). Without a token configured and presented it is a 401 that says how to configure one.
 * Unauthenticated scraping: STOPLINE_METRICS_PORT serves /metrics on its own listener, bound to
 * STOPLINE_METRICS_HOST (127.0.0.1 unless the operator says otherwise) — metrics-server.ts.
 */
export async function renderMetrics(database: Database | null): Promise<{ body: string; contentType: string }> {
  const m = metrics();
  m.scraped = true;
  if (database) await readLedgerGauges(database);
  const registry = m.registry;
  return { body: await registry.metrics(), contentType: registry.contentType };
}

const digest = (s: string) => createHash("sha256").update(s).digest();
const sameSecret = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

export type ScrapeAccess = { ok: true } | { ok: false; status: 401 | 403; message: string };

export async function scrapeAccess(database: Database, authorization: string | null): Promise<ScrapeAccess> {
  const presented = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1];
  const configured = process.env.STOPLINE_METRICS_TOKEN;
  const how =
    "send Authorization: Bearer <STOPLINE_METRICS_TOKEN> (set that variable on the server), or scrape STOPLINE_METRICS_PORT, which serves /metrics without a token on STOPLINE_METRICS_HOST";
  if (!presented) return { ok: false, status: 401, message: `metrics need a token: ${how}` };
  if (configured && configured.length >= 16 && sameSecret(presented, configured)) return { ok: true };
  const principal = await authenticateToken(database, presented);
  if (principal?.role === "admin") return { ok: true };
  if (principal) return { ok: false, status: 403, message: `a ${principal.role} token cannot read metrics: ${how}, or use an admin token` };
  return { ok: false, status: 401, message: `the token is not the metrics token nor a valid admin token: ${how}` };
}

/** The route's answer (app/metrics/route.ts). */
export async function scrapeResponse(database: Database, request: Request): Promise<Response> {
  const access = await scrapeAccess(database, request.headers.get("authorization"));
  if (!access.ok) {
    return Response.json(
      { error: { code: access.status === 401 ? "unauthorized" : "forbidden", message: access.message } },
      { status: access.status, headers: access.status === 401 ? { "WWW-Authenticate": 'Bearer realm="stopline-metrics"' } : {} },
    );
  }
  const { body, contentType } = await renderMetrics(database);
  return new Response(body, { headers: { "Content-Type": contentType, "Cache-Control": "no-store" } });
}
