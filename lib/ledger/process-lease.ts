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
