import { createHash, randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { resolveDatabase } from "./config";
import { listMigrations } from "./schema-diff";

/**
 * Applies prisma/<provider>/migrations/*\/migration.sql in order, each in its own transaction together with
 * its row in Prisma's `_prisma_migrations` table (so Prisma tooling elsewhere sees the same history).
 * Safe to run from several processes at once: SQLite serialises on the write lock, PostgreSQL on an
 * advisory lock. A migration already recorded with a different checksum is an error, never re-applied.
 */
export async function migrate(url?: string): Promise<{ applied: string[] }> {
  const target = resolveDatabase(url);
  const migrations = listMigrations(target.provider);
  const checksum = (sql: string) => createHash("sha256").update(sql).digest("hex");
  const applied: string[] = [];

  if (target.provider === "sqlite") {
    if (target.file !== ":memory:") mkdirSync(path.dirname(target.file), { recursive: true });
    const sqlite = new BetterSqlite3(target.file, { timeout: 15_000 });
    try {
      sqlite.pragma("journal_mode = WAL");
      sqlite.pragma("synchronous = FULL");
      sqlite.exec(MIGRATIONS_TABLE.sqlite);
      for (const m of migrations) {
        sqlite.exec("BEGIN IMMEDIATE");
        try {
          const row = sqlite.prepare(`SELECT checksum FROM _prisma_migrations WHERE migration_name = ? AND finished_at IS NOT NULL`).get(m.name) as
            | { checksum: string }
            | undefined;
          if (row) {
            assertSameChecksum(m.name, row.checksum, checksum(m.sql));
            sqlite.exec("COMMIT");
            continue;
          }
          sqlite.exec(m.sql);
          sqlite
            .prepare(`INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, finished_at, applied_steps_count) VALUES (?, ?, ?, ?, ?, 1)`)
            .run(randomUUID(), checksum(m.sql), m.name, Date.now(), Date.now());
          sqlite.exec("COMMIT");
          applied.push(m.name);
        } catch (error) {
          if (sqlite.inTransaction) sqlite.exec("ROLLBACK");
          throw new Error(`migration ${m.name} failed: ${(error as Error).message}`, { cause: error });
        }
      }
    } finally {
      sqlite.close();
    }
    return { applied };
  }

  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock(724201)");
    await client.query(MIGRATIONS_TABLE.postgres);
    for (const m of migrations) {
      const { rows } = await client.query(`SELECT checksum FROM _prisma_migrations WHERE migration_name = $1 AND finished_at IS NOT NULL`, [m.name]);
      if (rows[0]) {
        assertSameChecksum(m.name, rows[0].checksum, checksum(m.sql));
        continue;
      }
      await client.query("BEGIN");
      try {
        await client.query(m.sql);
        await client.query(
          `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, finished_at, applied_steps_count) VALUES ($1, $2, $3, now(), now(), 1)`,
          [randomUUID(), checksum(m.sql), m.name],
        );
        await client.query("COMMIT");
        applied.push(m.name);
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`migration ${m.name} failed: ${(error as Error).message}`, { cause: error });
      }
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock(724201)").catch(() => {});
    await client.end();
  }
  return { applied };
}

function assertSameChecksum(name: string, recorded: string, current: string) {
  if (recorded !== current) {
    throw new Error(
      `migration ${name} was changed after it was applied (checksum ${recorded.slice(0, 8)} ≠ ${current.slice(0, 8)}); add a new migration instead`,
    );
  }
}

// Prisma's own bookkeeping table, created the way `prisma migrate` would.
const MIGRATIONS_TABLE = {
  sqlite: `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME, "migration_name" TEXT NOT NULL,
    "logs" TEXT, "rolled_back_at" DATETIME, "started_at" DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)`,
  postgres: `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL, "finished_at" TIMESTAMPTZ,
    "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT, "rolled_back_at" TIMESTAMPTZ,
    "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`,
};
