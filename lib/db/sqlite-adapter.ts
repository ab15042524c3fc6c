import type Database from "better-sqlite3";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import type {
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  Transaction,
} from "@prisma/driver-adapter-utils";

/**
 * Prisma's better-sqlite3 adapter, made safe for a ledger:
 *
 * - WAL with `synchronous=FULL`: an acknowledged Stop survives a power cut (better-sqlite3's WAL default,
 *   NORMAL, can lose the last commits).
 * - `BEGIN IMMEDIATE` instead of `BEGIN`: a deferred transaction that reads and then writes while another
 *   process (a worker) committed meanwhile fails at once with SQLITE_BUSY — the busy timeout cannot help an
 *   upgrade from a stale snapshot. Taking the write lock up front makes concurrent writers queue instead.
 * - One operation at a time on the connection: the adapter shares one connection between interactive
 *   transactions and plain queries, so without this a plain query issued while a transaction is open would
 *   run inside it (reading uncommitted rows, or being rolled back with it).
 */
export class LedgerSqliteAdapterFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = "sqlite" as const;
  readonly adapterName = "@prisma/adapter-better-sqlite3";
  readonly #inner: PrismaBetterSqlite3;
  #connection: { db: Database.Database; lock: Lock } | null = null;

  constructor(filePath: string) {
    this.#inner = new PrismaBetterSqlite3({ url: filePath, timeout: 15_000 });
  }

  async connect(): Promise<SqlDriverAdapter> {
    const adapter = await this.#inner.connect();
    const db = (adapter as unknown as { client: Database.Database }).client;
    configureConnection(db);
    const lock = new Lock();
    this.#connection = { db, lock };
    return serialize(adapter, lock);
  }

  /**
   * Runs `fn` synchronously inside `BEGIN IMMEDIATE … COMMIT` on Prisma's own connection, queued behind
   * (and ahead of) Prisma's transactions by the same lock. For the ledger's hot path only: Prisma's
   * executor costs ~250 µs per statement, more than the fsync of the commit itself. Prisma must have
   * connected first (see lib/db/client.ts).
   */
  async directTransaction<T>(fn: (db: Database.Database) => T): Promise<T> {
    const connection = this.#connection;
    if (!connection) throw new Error("the SQLite connection is not open yet");
    const release = await connection.lock.acquire();
    try {
      connection.db.exec("BEGIN IMMEDIATE");
      try {
        const result = fn(connection.db);
        connection.db.exec("COMMIT");
        return result;
      } catch (error) {
        if (connection.db.inTransaction) connection.db.exec("ROLLBACK");
        throw error;
      }
    } finally {
      release();
    }
  }

  connectToShadowDb(): Promise<SqlDriverAdapter> {
    return this.#inner.connectToShadowDb();
  }
}

export function configureConnection(db: Database.Database): void {
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.pragma("busy_timeout = 15000");
  db.pragma("foreign_keys = ON");
  const prepare = db.prepare.bind(db);
  // The adapter opens every transaction with prepare("BEGIN"); see the class comment for why IMMEDIATE.
  db.prepare = ((sql: string) => prepare(sql === "BEGIN" ? "BEGIN IMMEDIATE" : sql)) as typeof db.prepare;
}

/** A FIFO lock: callers run one at a time, in arrival order. */
class Lock {
  #tail: Promise<void> = Promise.resolve();
  acquire(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => (release = resolve));
    const ready = this.#tail.then(() => release);
    this.#tail = this.#tail.then(() => next);
    return ready;
  }
}

function serialize(adapter: SqlDriverAdapter, lock: Lock): SqlDriverAdapter {
  const exclusive = async <T>(run: () => Promise<T>): Promise<T> => {
    const release = await lock.acquire();
    try {
      return await run();
    } finally {
      release();
    }
  };
  return {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    queryRaw: (q) => exclusive(() => adapter.queryRaw(q)),
    executeRaw: (q) => exclusive(() => adapter.executeRaw(q)),
    executeScript: (s) => exclusive(() => adapter.executeScript(s)),
    getConnectionInfo: adapter.getConnectionInfo?.bind(adapter),
    dispose: () => adapter.dispose(),
    async startTransaction(isolationLevel) {
      // Held from BEGIN until COMMIT/ROLLBACK; the transaction's own queries bypass it.
      const release = await lock.acquire();
      let tx: Transaction;
      try {
        tx = await adapter.startTransaction(isolationLevel);
      } catch (error) {
        release();
        throw error;
      }
      const end = (finish: () => Promise<void>) => async () => {
        try {
          await finish();
        } finally {
          release();
        }
      };
      return {
        provider: tx.provider,
        adapterName: tx.adapterName,
        options: tx.options,
        queryRaw: (q) => tx.queryRaw(q),
        executeRaw: (q) => tx.executeRaw(q),
        createSavepoint: tx.createSavepoint?.bind(tx),
        rollbackToSavepoint: tx.rollbackToSavepoint?.bind(tx),
        releaseSavepoint: tx.releaseSavepoint?.bind(tx),
        commit: end(() => tx.commit()),
        rollback: end(() => tx.rollback()),
      };
    },
  };
}
