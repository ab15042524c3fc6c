import type { Database } from "../db/client";
import { TaskStage } from "../ledger/states";
import { databaseNow } from "../ledger/write";

/**
 * Which process runs a task's cancellation. A guarded write: the task is still being stopped and nobody else
 * holds a live lease on it. The holder renews it while it works; if its process dies (SIGKILL mid-cancellation)
 * the lease expires and the maintenance leader runs the cancellation again — every step of it is safe to repeat.
 */
export const ENGINE_LEASE_MS = () => Number(process.env.STOPLINE_ENGINE_LEASE_MS ?? 15_000);

export async function claimEngineRun(database: Database, taskId: string, owner: string): Promise<boolean> {
  const now = await databaseNow(database.prisma, database.provider);
  const { count } = await database.prisma.task.updateMany({
    where: {
      id: taskId, stage: TaskStage.cancelRequested,
      OR: [{ engineLeaseExpiresAt: null }, { engineLeaseExpiresAt: { lt: now } }, { engineOwner: owner }],
    },
    data: { engineOwner: owner, engineLeaseExpiresAt: new Date(now.getTime() + ENGINE_LEASE_MS()) },
  });
  return count === 1;
}

/** Extends the holder's lease; false when it was lost (taken over after it expired). */
export async function renewEngineRun(database: Database, taskId: string, owner: string): Promise<boolean> {
  const now = await databaseNow(database.prisma, database.provider);
  const { count } = await database.prisma.task.updateMany({ where: { id: taskId, engineOwner: owner }, data: { engineLeaseExpiresAt: new Date(now.getTime() + ENGINE_LEASE_MS()) } });
  return count === 1;
}

export async function releaseEngineRun(database: Database, taskId: string, owner: string): Promise<void> {
  await database.prisma.task.updateMany({ where: { id: taskId, engineOwner: owner }, data: { engineOwner: null, engineLeaseExpiresAt: null } });
}
