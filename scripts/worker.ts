/**
 * npm run worker — a separate worker process on the database named by DATABASE_URL: claims queued work
 * items of the registered tools, runs them (cancellation arrives with the next heartbeat), and runs the
 * cancellation engine's maintenance pass. Stop with SIGINT/SIGTERM: it stops claiming and lets running
 * items finish; if it is killed instead, their leases expire and the ledger resumes them safely.
 */
import { migrate } from "../lib/db/migrate";
import { resolveDatabase } from "../lib/db/config";
import { appRegistry } from "../lib/runtime/app-registry";
import { startBackground, stopBackground } from "../lib/runtime/background";
import { startJsonLogs } from "../lib/observability/log";
import { retentionPolicy } from "../lib/retention/policy";

await startJsonLogs(); // STOPLINE_LOG_FORMAT=json: every line of this process is JSON from the first (lib/observability/log.ts)
// A bad retention policy (STOPLINE_RETENTION_DAYS, lib/retention) is a start-up error, said plainly.
try {
  retentionPolicy();
} catch (error) {
  console.error(`[stopline] ${(error as Error).message}`);
  process.exit(1);
}
await migrate();
const { pool } = startBackground({ workerId: process.env.STOPLINE_WORKER_ID });
console.log(
  `stopline worker ${pool?.workerId ?? "(no pool: STOPLINE_WORKERS=0)"} on ${resolveDatabase().provider}; tools: ${appRegistry().names().join(", ") || "none registered"}`,
);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, async () => {
    await stopBackground();
    process.exit(0);
  });
}
