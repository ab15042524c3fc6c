import { db } from "@/lib/db/client";
import { scrapeResponse } from "@/lib/observability/scrape";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /metrics — Prometheus text exposition (lib/observability/scrape.ts: Bearer STOPLINE_METRICS_TOKEN or an admin token). */
export const GET = (request: Request) => scrapeResponse(db(), request);
