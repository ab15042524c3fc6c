import type { Database } from "../db/client";
import { databaseNow } from "./write";

/**
 * A named lease that one process holds at a time (e.g. "maintenance": the leader that runs the maintenance
 * pass, so that several app instances and worker processes do not all repeat it). Judged by the database clock.
 * The holder renews it on every pass; if it dies, another process takes it over once it expired.
 * Returns whether `owner` holds it now.
 */
export async function holdProcessLease(database: Database, input: { name: string; owner: string; ttlMs: number }): Promise<boolean> {
  const now = await databaseNow(database.prisma, database.provider);
  const expiresAt = new Date(now.getTime() + input.ttlMs);
  // Renew our own, or take over an expired one: a guarded write, so two contenders cannot both win.
  const { count } = await database.prisma.processLease.updateMany({
    where: { name: input.name, OR: [{ owner: input.owner }, { expiresAt: { lt: now } }] },
    data: { owner: input.owner, expiresAt },
  });
  if (count === 1) return true;
  try {
    await database.prisma.processLease.create({ data: { name: input.name, owner: input.owner, expiresAt } });
    return true;
  } catch (error) {
    if ((error as { code?: string })?.code === "P2002") return false; // someone else holds it
    throw error;
  }
}

/** Gives the lease up at once (a process that stops cleanly), so that another takes over without waiting. */
export async function releaseProcessLease(database: Database, input: { name: string; owner: string }): Promise<void> {
  await database.prisma.processLease.updateMany({ where: { name: input.name, owner: input.owner }, data: { expiresAt: new Date(0) } });
}

// ---- process liveness of workers (issue 19 §2) -------------------------------------------------------------------

/**
 * A worker pool's process lease: `worker:<workerId>`, renewed while its process lives. A work item's lease names its
 * worker (`WorkItem.leaseOwner`); when that worker's process lease has expired, the process is gone — whatever the
 * item's own (longer) lease still says — and its children are not "still running": lease recovery takes them over
 * (recover-expired-leases.ts) and the engine asks the service what happened. A worker without a process lease is judged
 * by its item leases alone.
 */
export const WORKER_PROCESS_LEASE_PREFIX = "worker:";
export const workerProcessLeaseName = (workerId: string) => `${WORKER_PROCESS_LEASE_PREFIX}${workerId}`;
/** How long a worker process stays "alive" without renewing (renewed every third of it). */
export const PROCESS_LEASE_MS = () => Number(process.env.STOPLINE_PROCESS_LEASE_MS ?? 10_000);

/** Holds `worker:<workerId>` while this process lives; the returned function gives it up (a clean stop). */
export function keepWorkerProcessLease(database: Database, workerId: string, ttlMs = PROCESS_LEASE_MS()): () => Promise<void> {
  const name = workerProcessLeaseName(workerId);
  LOCAL_WORKERS.add(workerId);
  const renew = () => holdProcessLease(database, { name, owner: workerId, ttlMs }).catch(() => false);
  void renew();
  const timer = setInterval(() => void renew(), Math.max(100, Math.floor(ttlMs / 3)));
  timer.unref?.();
  return async () => {
    clearInterval(timer);
    LOCAL_WORKERS.delete(workerId);
    await releaseProcessLease(database, { name, owner: workerId }).catch(() => {});
  };
}

/** Workers of this very process (alive as long as the code asking is). */
const LOCAL_WORKERS = new Set<string>();
export const isLocalWorker = (workerId: string) => LOCAL_WORKERS.has(workerId);

/** Workers whose process lease has expired (their process is gone), judged by the database clock. */
export async function goneWorkers(database: Pick<Database, "prisma">, now: Date): Promise<string[]> {
  const rows = await database.prisma.processLease.findMany({
    where: { name: { startsWith: WORKER_PROCESS_LEASE_PREFIX }, expiresAt: { lt: now } },
    select: { owner: true },
  });
  return rows.map((r) => r.owner);
}

/** What is known of each worker's process: its lease's expiry, or null when it never registered one. */
export async function workerLeaseExpiries(database: Pick<Database, "prisma">, workerIds: string[]): Promise<Map<string, Date>> {
  if (!workerIds.length) return new Map();
  const rows = await database.prisma.processLease.findMany({
    where: { name: { in: workerIds.map(workerProcessLeaseName) } },
    select: { owner: true, expiresAt: true },
  });
  return new Map(rows.map((r) => [r.owner, r.expiresAt]));
}
