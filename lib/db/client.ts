import { mkdirSync } from "node:fs";
import type { Database as BetterSqlite3Database } from "better-sqlite3";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as SqliteClient } from "./generated/sqlite/client.ts";
import { PrismaClient as PostgresClient } from "./generated/postgres/client.ts";
import { resolveDatabase, type DatabaseTarget } from "./config";
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
  close(): Promise<void>;
}

// Interactive transactions queue behind each other on SQLite's single writer; give them room under load.
// (On SQLite the adapter bounds the wait for the write lock well below maxWait, and every transaction's life
// a little above `timeout` — lib/db/sqlite-adapter.ts.)
const transactionOptions = { maxWait: 15_000, timeout: 15_000 };

/**
 * PostgreSQL session settings that keep one frozen or stuck client from holding everyone else hostage:
 * a session idle inside a transaction (a worker stopped mid-transaction) is ended by the server after 20 s,
 * which releases its locks; no statement waits for a lock longer than 5 s, nor runs longer than 60 s.
 * Failures answer 503 with Retry-After (lib/db/unavailable.ts). Every `pg` pool of the app should use these.
 */
export const PG_SESSION_BOUNDS = {
  idle_in_transaction_session_timeout: Number(process.env.STOPLINE_PG_IDLE_IN_TRANSACTION_MS ?? 20_000),
  lock_timeout: Number(process.env.STOPLINE_PG_LOCK_TIMEOUT_MS ?? 5_000),
  statement_timeout: Number(process.env.STOPLINE_PG_STATEMENT_TIMEOUT_MS ?? 60_000),
  connectionTimeoutMillis: 5_000,
} as const;

export interface OpenOptions {
  /** SQLite only: bounds of lock waits and transactions (defaults from the environment). */
  sqlite?: Partial<SqliteBounds>;
  /** PostgreSQL only: overrides of PG_SESSION_BOUNDS. */
  postgres?: Partial<Record<keyof typeof PG_SESSION_BOUNDS, number>>;
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
    return {
      provider: target.provider,
      target,
      prisma: client,
      sqlite: { transaction: async (fn) => (await connected, factory.directTransaction(fn)) },
      close: () => client.$disconnect(),
    };
  } else {
    const adapter = new PrismaPg({ connectionString: target.url, max: Number(process.env.PG_POOL_SIZE ?? 10), ...PG_SESSION_BOUNDS, ...options.postgres });
    prisma = new PostgresClient({ adapter, transactionOptions }) as unknown as PrismaDb;
  }
  return { provider: target.provider, target, prisma, close: () => prisma.$disconnect() };
}

const globalForDb = globalThis as unknown as { stoplineDb?: Database };

/** The process-wide database named by DATABASE_URL (one client per process, also across Next's module reloads). */
export function db(): Database {
  return (globalForDb.stoplineDb ??= openDatabase());
}
