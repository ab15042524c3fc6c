import { mkdirSync } from "node:fs";
import type { Database as BetterSqlite3Database } from "better-sqlite3";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as SqliteClient } from "./generated/sqlite/client.ts";
import { PrismaClient as PostgresClient } from "./generated/postgres/client.ts";
import { resolveDatabase, type DatabaseTarget } from "./config";
import { openPgPool, pgSessionBoundsFromEnv, type PgDirect, type PgSessionBounds } from "./pg";
import { LedgerSqliteAdapterFactory, type SqliteBounds } from "./sqlite-adapter";

/**
 * Both generated clients expose the same models and methods; the SQLite one's type stands for both.
 * (Provider-only extras such as Postgres' `mode: "insensitive"` are not used by Stopline.)
 */
export type PrismaDb = InstanceType<typeof SqliteClient>;
export type Tx = Parameters<Parameters<PrismaDb["$transaction"]>[0]>[0];

export interface Database {
  readonly provider: DatabaseTarget["provider"];
  readonly target: DatabaseTarget;
  readonly prisma: PrismaDb;
  /** SQLite only: a synchronous transaction on the same connection, for the ledger's hot path. */
  readonly sqlite?: { transaction<T>(fn: (db: BetterSqlite3Database) => T): Promise<T> };
  /** PostgreSQL only: the app's pool (shared with Prisma's adapter), for the ledger's hot path. */
  readonly pg?: PgDirect;
  /** Runs `fn` before the connections close (what a process keeps per database: its live view). */
  onClose(fn: () => Promise<void>): void;
  close(): Promise<void>;
}

// Interactive transactions queue behind each other on SQLite's single writer; give them room under load.
// (On SQLite the adapter bounds the wait for the write lock well below maxWait, and every transaction's life
// a little above `timeout` — lib/db/sqlite-adapter.ts.)
const transactionOptions = { maxWait: 15_000, timeout: 15_000 };

export interface OpenOptions {
  /** SQLite only: bounds of lock waits and transactions (defaults from the environment). */
  sqlite?: Partial<SqliteBounds>;
  /** PostgreSQL only: session bounds of the pool (defaults from the environment; lib/db/pg.ts). */
  postgres?: Partial<PgSessionBounds>;
}

export function openDatabase(url?: string, options: OpenOptions = {}): Database {
  const target = resolveDatabase(url);
  let prisma: PrismaDb;
  if (target.provider === "sqlite") {
    if (target.file !== ":memory:") mkdirSync(path.dirname(target.file), { recursive: true });
    const factory = new LedgerSqliteAdapterFactory(target.file, options.sqlite);
    const client = new SqliteClient({ adapter: factory, transactionOptions });
    const connected = client.$connect();
    connected.catch(() => {}); // surfaced by the first query or direct transaction that awaits it
    const closing = closeHooks();
    return {
      provider: target.provider,
      target,
      prisma: client,
      sqlite: { transaction: async (fn) => (await connected, factory.directTransaction(fn)) },
      onClose: closing.add,
      close: async () => {
        await closing.run();
        await client.$disconnect();
      },
    };
  }
  const direct = openPgPool(target.url, undefined, pgSessionBoundsFromEnv(options.postgres));
  prisma = new PostgresClient({ adapter: new PrismaPg(direct.pool), transactionOptions }) as unknown as PrismaDb;
  const closing = closeHooks();
  return {
    provider: target.provider,
    target,
    prisma,
    pg: direct,
    onClose: closing.add,
    close: async () => {
      await closing.run();
      await prisma.$disconnect();
      await direct.pool.end();
    },
  };
}

const globalForDb = globalThis as unknown as { stoplineDb?: Database };

/** The process-wide database named by DATABASE_URL (one client per process, also across Next's module reloads). */
export function db(): Database {
  return (globalForDb.stoplineDb ??= openDatabase());
}

/** A SQLite database's direct connection (the ledger's synchronous transactions on Prisma's own connection). */
export type SqliteDirect = NonNullable<Database["sqlite"]>;

/**
 * The one place a database's engine is chosen: a verb gives its way on each — on SQLite the direct connection (or
 * Prisma, which is the same on both), on PostgreSQL the app's pool. The rest of the code never asks which it is.
 */
export function onEngine<T>(database: Pick<Database, "sqlite" | "pg">, ways: { sqlite: (direct: SqliteDirect) => T; postgres: (pg: PgDirect) => T }): T {
  if (database.sqlite) return ways.sqlite(database.sqlite);
  if (database.pg) return ways.postgres(database.pg);
  throw new Error("the database has neither a SQLite connection nor a PostgreSQL pool");
}

/** The PostgreSQL pool of a PostgreSQL database (every database is SQLite with `sqlite`, or PostgreSQL with `pg`). */
export function pgOf(database: Database): PgDirect {
  if (!database.pg) throw new Error(`the ${database.provider} database has no PostgreSQL pool`);
  return database.pg;
}

function closeHooks() {
  const hooks: (() => Promise<void>)[] = [];
  return {
    add: (fn: () => Promise<void>) => void hooks.push(fn),
    run: async () => {
      for (const fn of hooks.splice(0)) await fn().catch((error) => console.error("closing the database: a close hook failed", error));
    },
  };
}
