import { randomUUID } from "node:crypto";
import type { Database } from "../db/client";
import { holdProcessLease, releaseProcessLease } from "../ledger/process-lease";
import { archiveSettledTasks, type RetentionRun } from "./archive-settled-tasks";
import type { RetentionPolicy } from "./policy";

/** One process runs retention at a time, whatever the number of app instances and workers (and the CLI). */
export const RETENTION_LEASE = "retention";
/** Longer than any pass is expected to take; renewed while a pass runs. */
const LEASE_MS = 10 * 60_000;

/**
 * Runs `pass` while holding the "retention" process lease (renewed every minute meanwhile), or returns null when another
 * process holds it. The lease is given up at the end so the next pass may run anywhere.
 */
export async function withRetentionLease<T>(database: Database, owner: string, pass: () => Promise<T>): Promise<T | null> {
  if (!(await holdProcessLease(database, { name: RETENTION_LEASE, owner, ttlMs: LEASE_MS }))) return null;
  const renew = setInterval(() => void holdProcessLease(database, { name: RETENTION_LEASE, owner, ttlMs: LEASE_MS }).catch(() => {}), 60_000);
  renew.unref?.();
  try {
    return await pass();
  } finally {
    clearInterval(renew);
    await releaseProcessLease(database, { name: RETENTION_LEASE, owner }).catch(() => {});
  }
}

/**
 * The background retention pass of a process that runs engine maintenance (lib/runtime/background.ts: the app, or
 * `npm run worker`): once a minute after start, then every `policy.intervalMs` (default an hour). Nothing runs when the
 * policy keeps everything. A failed pass is logged and tried again on the next tick (every step is safe to repeat).
 * Returns the function that stops it (waiting for a pass under way).
 */
export function startRetention(
  database: Database,
  policy: RetentionPolicy,
  options: { firstDelayMs?: number; onRun?: (run: RetentionRun) => void } = {},
): () => Promise<void> {
  if (policy.days === null) return async () => {};
  const owner = `retention-${randomUUID().slice(0, 8)}`;
  let running: Promise<unknown> | null = null;
  const tick = () => {
    if (running) return;
    running = withRetentionLease(database, owner, () => archiveSettledTasks(database, policy))
      .then((run) => {
        if (!run) return;
        if (run.archived || run.recovered)
          console.log(`[stopline] retention: ${run.archived} settled task(s) archived (${run.files.map((f) => f.path).join(", ")})`);
        options.onRun?.(run);
      })
      .catch((error) => console.error("retention pass failed; retrying on the next one", error))
      .finally(() => (running = null));
  };
  const first = setTimeout(tick, options.firstDelayMs ?? 60_000);
  const timer = setInterval(tick, policy.intervalMs);
  first.unref?.();
  timer.unref?.();
  return async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  };
}
