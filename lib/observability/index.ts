import type { Database } from "../db/client";
import { startJsonLogs } from "./log";
import { startTracing, stopTracing } from "./tracing";

/**
 * What an on-call team reads, started once per process by its background (lib/runtime/background.ts): JSON logs
 * (STOPLINE_LOG_FORMAT=json), traces (OTEL_EXPORTER_OTLP_ENDPOINT), the ledger observer that feeds the metrics and
 * the spans emitted from ledger facts, and the unauthenticated metrics listener (STOPLINE_METRICS_PORT). The app's
 * GET /metrics (token) is app/metrics/route.ts. Each says in one line what it started.
 */
const globalForObservability = globalThis as unknown as { stoplineObservability?: Promise<() => Promise<void>> };

export function startObservability(database: Database, options: { serviceName?: string } = {}): Promise<() => Promise<void>> {
  return (globalForObservability.stoplineObservability ??= (async () => {
    const log = (line: string) => console.log(`[stopline] ${line}`);
    if (await startJsonLogs()) log("logs: JSON lines (STOPLINE_LOG_FORMAT=json)");
    const traces = await startTracing(options).catch((error) => {
      console.error(`[stopline] traces: could not start the OTLP exporter: ${(error as Error).message}`);
      return null;
    });
    if (traces) log(traces);
    // Loaded here, not at the process's start: prom-client and the summary code cost start-up time in every process.
    const [{ observeLedger }, { startMetricsServer }] = await Promise.all([import("./ledger-observer"), import("./metrics-server")]);
    const stopObserving = observeLedger(database);
    const listener = await startMetricsServer(database).catch((error) => {
      console.error(`[stopline] metrics: could not listen on STOPLINE_METRICS_PORT=${process.env.STOPLINE_METRICS_PORT}: ${(error as Error).message}`);
      return null;
    });
    if (listener) log(`metrics: ${listener.url} (no token: bound to ${process.env.STOPLINE_METRICS_HOST ?? "127.0.0.1"})`);
    const token = process.env.STOPLINE_METRICS_TOKEN;
    if (token && token.length < 16)
      console.error("[stopline] metrics: STOPLINE_METRICS_TOKEN is shorter than 16 characters and is not accepted; GET /metrics takes an admin token only");
    return async () => {
      globalForObservability.stoplineObservability = undefined;
      stopObserving();
      listener?.server.close();
      await stopTracing();
    };
  })());
}

/** Ends what startObservability started (spans still buffered are sent first). */
export async function stopObservability(): Promise<void> {
  const running = globalForObservability.stoplineObservability;
  if (running) await (await running)();
}
