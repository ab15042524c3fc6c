import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { openDatabase, type Database } from "./client";
import { migrate } from "./migrate";

export type TestEngine = "sqlite" | "postgres";

/** Which database this test run targets (vitest projects set STOPLINE_TEST_DB). */
export function testEngine(): TestEngine {
  const engine = process.env.STOPLINE_TEST_DB ?? "sqlite";
  if (engine !== "sqlite" && engine !== "postgres") throw new Error(`STOPLINE_TEST_DB must be sqlite or postgres, not ${engine}`);
  return engine;
}

export interface TestDatabase {
  url: string;
  database: Database;
  /** Makes `db()` (used by route handlers) return this database. */
  install(): void;
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database for one test file: a new SQLite file in a temp dir, or a new PostgreSQL
 * database created from TEST_PG_URL (dropped afterwards).
 */
export async function createTestDatabase(engine: TestEngine = testEngine()): Promise<TestDatabase> {
  let url: string;
  let dropDatabase: () => Promise<void>;
  if (engine === "sqlite") {
    const dir = mkdtempSync(path.join(os.tmpdir(), "stopline-test-"));
    url = `file:${path.join(dir, "ledger.db")}`;
    dropDatabase = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const admin = process.env.TEST_PG_URL;
    if (!admin) throw new Error("TEST_PG_URL is not set: the PostgreSQL suite needs a server (npm test sets it when one answers)");
    const name = `stopline_test_${randomBytes(6).toString("hex")}`;
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query(`CREATE DATABASE ${name}`);
    await client.end();
    const u = new URL(admin);
    u.pathname = `/${name}`;
    url = u.toString();
    dropDatabase = async () => {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    };
  }
  await migrate(url);
  const database = openDatabase(url);
  return {
    url,
    database,
    install() {
      process.env.DATABASE_URL = url;
      (globalThis as unknown as { stoplineDb?: Database }).stoplineDb = database;
    },
    async drop() {
      await database.close();
      await dropDatabase();
    },
  };
}
