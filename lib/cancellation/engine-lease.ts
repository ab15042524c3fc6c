import { onEngine, type Database } from "../db/client";
import type { Task } from "../db/generated/sqlite/client.ts";
import { TaskStage } from "../ledger/states";

/**
 * Which process runs a task's cancellation. A guarded write: the task is still being stopped and nobody else
 * holds a live lease on it. The holder renews it while it works; if its process dies (SIGKILL mid-cancellation)
 * the lease expires and the maintenance leader runs the cancellation again — every step of it is safe to repeat.
 * One statement each, judged by the database's clock on PostgreSQL (SQLite runs on this machine's clock).
 */
export const ENGINE_LEASE_MS = () => Number(process.env.STOPLINE_ENGINE_LEASE_MS ?? 15_000);

const PG_NOW = `timezone('UTC', clock_timestamp())`;

/** The task as the claim left it (the pass starts from it), or null when another live process holds the run. */
export const claimEngineRun = (database: Database, taskId: string, owner: string): Promise<Task | null> =>
  onEngine(database, {
    postgres: async (pg) => {
      const rows = await pg.query<Task>(
        `UPDATE "Task" SET "engineOwner" = $2, "engineLeaseExpiresAt" = ${PG_NOW} + make_interval(secs => $3::double precision / 1000)
       WHERE "id" = $1 AND "stage" = '${TaskStage.cancelRequested}'
         AND ("engineLeaseExpiresAt" IS NULL OR "engineLeaseExpiresAt" < ${PG_NOW} OR "engineOwner" = $2)
       RETURNING *`,
        [taskId, owner, ENGINE_LEASE_MS()],
        "stopline_engine_claim_task",
      );
      return rows[0] ?? null;
    },
    sqlite: async () => {
      const now = new Date();
      const { count } = await database.prisma.task.updateMany({
        where: {
          id: taskId,
          stage: TaskStage.cancelRequested,
          OR: [{ engineLeaseExpiresAt: null }, { engineLeaseExpiresAt: { lt: now } }, { engineOwner: owner }],
        },
        data: { engineOwner: owner, engineLeaseExpiresAt: new Date(now.getTime() + ENGINE_LEASE_MS()) },
      });
      return count === 1 ? database.prisma.task.findUnique({ where: { id: taskId } }) : null;
    },
  });

/** Extends the holder's lease; false when it was lost (taken over after it expired). */
export const renewEngineRun = (database: Database, taskId: string, owner: string): Promise<boolean> =>
  onEngine(database, {
    postgres: async (pg) => {
      const rows = await pg.query(
        `UPDATE "Task" SET "engineLeaseExpiresAt" = ${PG_NOW} + make_interval(secs => $3::double precision / 1000) WHERE "id" = $1 AND "engineOwner" = $2 RETURNING "id"`,
        [taskId, owner, ENGINE_LEASE_MS()],
        "stopline_engine_renew",
      );
      return rows.length === 1;
    },
    sqlite: async () => {
      const { count } = await database.prisma.task.updateMany({
        where: { id: taskId, engineOwner: owner },
        data: { engineLeaseExpiresAt: new Date(Date.now() + ENGINE_LEASE_MS()) },
      });
      return count === 1;
    },
  });

export const releaseEngineRun = (database: Database, taskId: string, owner: string): Promise<void> =>
  onEngine(database, {
    postgres: async (pg) => {
      await pg.query(
        `UPDATE "Task" SET "engineOwner" = NULL, "engineLeaseExpiresAt" = NULL WHERE "id" = $1 AND "engineOwner" = $2`,
        [taskId, owner],
        "stopline_engine_release",
      );
    },
    sqlite: async () => {
      await database.prisma.task.updateMany({ where: { id: taskId, engineOwner: owner }, data: { engineOwner: null, engineLeaseExpiresAt: null } });
    },
  });
