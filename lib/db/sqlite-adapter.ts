import type Database from "better-sqlite3";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory, SqlQuery, Transaction } from "@prisma/driver-adapter-utils";
import { databaseUnavailable } from "./unavailable";

/**
 * Prisma's better-sqlite3 adapter, made safe for a ledger that other processes (workers) write too:
 *
 * - WAL with `synchronous=FULL`: an acknowledged Stop survives a power cut (better-sqlite3's WAL default,
 *   NORMAL, can lose the last commits).
 * - `BEGIN IMMEDIATE` instead of `BEGIN`: a deferred transaction that reads and then writes while another
 *   process (a worker) committed meanwhile fails at once with SQLITE_BUSY — the busy timeout cannot help an
 *   upgrade from a stale snapshot. Taking the write lock up front makes concurrent writers queue instead.
 * - One operation at a time on the connection: the adapter shares one connection between interactive
 *   transactions and plain queries, so without this a plain query issued while a transaction is open would
 *   run inside it (reading uncommitted rows, or being rolled back with it).
 *
 * And no other process can hold this one hostage (a worker frozen by SIGSTOP, a debugger, a full disk inside
 * its write transaction keeps SQLite's one write lock for as long as it is frozen):
 *
 * - better-sqlite3 is synchronous, so SQLite's busy handler would block the whole event loop while it waits
 *   (15 s per statement before: every request of the server hung). Here each statement waits at most
 *   {@link STATEMENT_BUSY_MS} inside SQLite; waiting longer is done asynchronously — between attempts the
 *   process keeps serving (reads need no lock in WAL mode and go on answering).
 * - Every wait for the write lock is bounded in time (`lockWaitMs`, default 5 s, STOPLINE_SQLITE_LOCK_WAIT_MS):
 *   then the request fails with `unavailable` — a 503 that says why — instead of queueing forever. While the
 *   lock stays taken, later requests probe for a short while only ({@link PROBE_MS}) so they do not pile up.
 * - Every transaction is bounded in time (`transactionMaxMs`, default 20 s, STOPLINE_SQLITE_TRANSACTION_MAX_MS;
 *   Prisma's own interactive-transaction timeout is 15 s): past it the transaction is rolled back here, the
 *   connection is released and every later statement of that transaction is refused (nothing half-done can
 *   commit). Its work is bounded too: at most `transactionMaxStatements` statements (default 10,000,
 *   STOPLINE_SQLITE_TRANSACTION_MAX_STATEMENTS; the ledger's largest writes are a few statements, bulk ones one
 *   statement), and no statement inside it can block the process for longer than {@link STATEMENT_BUSY_MS}.
 * - The connection recovers from every such timeout: BEGIN is issued here (Prisma's adapter leaks its own
 *   mutex when BEGIN fails — that was the permanent hang), a failed or abandoned transaction is rolled back,
 *   and a transaction left open on the connection by anything else is rolled back before the next one starts.
 */
export const STATEMENT_BUSY_MS = 10;
/** After a lock wait timed out, how long later requests probe before answering 503 (until a write succeeds). */
export const PROBE_MS = 250;

export interface SqliteBounds {
  /** Longest wait for the write lock (ms). */
  lockWaitMs: number;
  /** Longest life of one transaction (ms). */
  transactionMaxMs: number;
  /** Most statements one (Prisma) transaction may run while it holds the write lock. */
  transactionMaxStatements: number;
}

export function sqliteBoundsFromEnv(overrides: Partial<SqliteBounds> = {}): SqliteBounds {
  const num = (name: string, fallback: number) => {
    const v = Number(process.env[name]);
    return Number.isFinite(v) && v > 0 ? v : fallback;
  };
  return {
    lockWaitMs: num("STOPLINE_SQLITE_LOCK_WAIT_MS", 5_000),
    transactionMaxMs: num("STOPLINE_SQLITE_TRANSACTION_MAX_MS", 20_000),
    transactionMaxStatements: num("STOPLINE_SQLITE_TRANSACTION_MAX_STATEMENTS", 10_000),
    ...overrides,
  };
}

interface Connection {
  db: Database.Database;
  gate: Gate;
}

export class LedgerSqliteAdapterFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = "sqlite" as const;
  readonly adapterName = "@prisma/adapter-better-sqlite3";
  readonly #inner: PrismaBetterSqlite3;
  readonly bounds: SqliteBounds;
  #connection: Connection | null = null;

  constructor(filePath: string, bounds: Partial<SqliteBounds> = {}) {
    this.#inner = new PrismaBetterSqlite3({ url: filePath, timeout: STATEMENT_BUSY_MS });
    this.bounds = sqliteBoundsFromEnv(bounds);
  }

  async connect(): Promise<SqlDriverAdapter> {
    const adapter = await this.#inner.connect();
    const db = (adapter as unknown as { client: Database.Database }).client;
    configureConnection(db);
    const connection = { db, gate: new Gate(db, this.bounds) };
    this.#connection = connection;
    return bounded(adapter, connection, this.bounds);
  }

  /**
   * Runs `fn` synchronously inside `BEGIN IMMEDIATE … COMMIT` on Prisma's own connection, queued behind
   * (and ahead of) Prisma's transactions by the same gate. For the ledger's hot path only: Prisma's
   * executor costs ~250 µs per statement, more than the fsync of the commit itself. Prisma must have
   * connected first (see lib/db/client.ts). `fn` is synchronous, so nothing can interleave with it and it
   * needs no watchdog; waiting for the write lock is bounded like every other wait.
   */
  async directTransaction<T>(fn: (db: Database.Database) => T): Promise<T> {
    const connection = this.#connection;
    if (!connection) throw new Error("the SQLite connection is not open yet");
    const release = await connection.gate.begin();
    try {
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
  db.pragma(`busy_timeout = ${STATEMENT_BUSY_MS}`);
  db.pragma("foreign_keys = ON");
}

const isBusy = (error: unknown) => {
  const code = (error as { code?: unknown })?.code;
  const kind = (error as { cause?: { kind?: unknown } })?.cause?.kind;
  return (typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))) || kind === "SocketTimeout";
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The connection's gate: a FIFO lock (one operation at a time on the connection, in arrival order) whose
 * waits are bounded, plus BEGIN IMMEDIATE with asynchronous retries while another process holds the lock.
 */
class Gate {
  #tail: Promise<void> = Promise.resolve();
  /** Set when a wait for the write lock timed out; cleared by the next write that gets the lock. */
  #lockedSince: number | null = null;

  constructor(
    readonly db: Database.Database,
    readonly bounds: SqliteBounds,
  ) {}

  /** Waits (at most until `deadline`) for this process's turn on the connection. */
  acquire(deadline: number): Promise<() => void> {
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    const previous = this.#tail;
    this.#tail = previous.then(() => done);
    return new Promise((resolve, reject) => {
      let gaveUp = false;
      const timer = setTimeout(
        () => {
          gaveUp = true;
          reject(this.#timeout("waiting behind this process's other database work"));
        },
        Math.max(0, deadline - Date.now()),
      );
      void previous.then(() => {
        if (gaveUp) return release(); // our turn came too late: pass it on at once
        clearTimeout(timer);
        // Nothing may be left open on the connection between two operations (recover if it ever is).
        if (this.db.inTransaction) {
          console.error("[stopline] the SQLite connection was left inside a transaction; rolling it back");
          this.db.exec("ROLLBACK");
        }
        resolve(release);
      });
    });
  }

  #deadline(): number {
    return Date.now() + (this.#lockedSince === null ? this.bounds.lockWaitMs : Math.min(PROBE_MS, this.bounds.lockWaitMs));
  }

  #timeout(what: string) {
    const held = this.#lockedSince === null ? this.bounds.lockWaitMs : Date.now() - this.#lockedSince;
    return databaseUnavailable(
      `the embedded database could not be written for ${Math.round(held / 100) / 10} s (${what}) — another process, such as a frozen or stuck worker, is holding its write lock`,
    );
  }

  /**
   * Runs one statement outside any transaction: our turn on the connection, then the statement; SQLITE_BUSY
   * (another process holds the write lock) is retried asynchronously until the deadline.
   */
  async run<T>(statement: () => Promise<T>): Promise<T> {
    const deadline = this.#deadline();
    for (let attempt = 0; ; attempt++) {
      const release = await this.acquire(deadline);
      try {
        const result = await statement();
        return result;
      } catch (error) {
        if (!isBusy(error)) throw error;
        if (Date.now() >= deadline) {
          this.#lockedSince ??= Date.now() - this.bounds.lockWaitMs;
          throw this.#timeout("a statement");
        }
      } finally {
        release();
      }
      await sleep(backoff(attempt));
    }
  }

  /** BEGIN IMMEDIATE: returns holding the connection (call the release when the transaction ended). */
  async begin(): Promise<() => void> {
    const deadline = this.#deadline();
    for (let attempt = 0; ; attempt++) {
      const release = await this.acquire(deadline);
      try {
        this.db.exec("BEGIN IMMEDIATE");
        this.#lockedSince = null;
        return release;
      } catch (error) {
        release();
        if (!isBusy(error)) throw error;
        if (Date.now() >= deadline) {
          this.#lockedSince ??= Date.now() - this.bounds.lockWaitMs;
          throw this.#timeout("waiting for the write lock");
        }
      }
      // Between attempts the connection is free: reads (and other requests' attempts) go on.
      await sleep(backoff(attempt));
    }
  }
}

/** 2, 4, 8 … 50 ms between attempts. */
const backoff = (attempt: number) => Math.min(50, 2 ** (attempt + 1));

function bounded(adapter: SqlDriverAdapter, connection: Connection, bounds: SqliteBounds): SqlDriverAdapter {
  const { gate, db } = connection;
  return {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    queryRaw: (q) => gate.run(() => adapter.queryRaw(q)),
    executeRaw: (q) => gate.run(() => adapter.executeRaw(q)),
    executeScript: (s) => gate.run(() => adapter.executeScript(s)),
    getConnectionInfo: adapter.getConnectionInfo?.bind(adapter),
    dispose: () => adapter.dispose(),
    async startTransaction(isolationLevel) {
      if (isolationLevel && isolationLevel !== "SERIALIZABLE") {
        throw new Error(`SQLite transactions are serializable; isolation level ${isolationLevel} is not supported`);
      }
      // Held from BEGIN until COMMIT/ROLLBACK (Prisma sends those as statements, then calls commit()/rollback()).
      const release = await gate.begin();
      let closed: string | null = null;
      const end = (why: string) => {
        if (closed) return;
        closed = why;
        clearTimeout(watchdog);
        release();
      };
      // The time bound: a transaction nobody finishes is rolled back here and its connection released.
      const watchdog = setTimeout(() => {
        console.error(`[stopline] a SQLite transaction was still open after ${bounds.transactionMaxMs} ms: rolled back`);
        if (db.inTransaction) db.exec("ROLLBACK");
        end(`it was rolled back after ${bounds.transactionMaxMs} ms (the transaction time bound)`);
      }, bounds.transactionMaxMs);
      watchdog.unref();
      let statements = 0;
      const open = <T>(run: () => Promise<T>, q?: SqlQuery): Promise<T> => {
        if (closed) {
          // COMMIT/ROLLBACK after the watchdog: the transaction is gone; a COMMIT must fail loudly.
          if (q && /^\s*ROLLBACK\b/i.test(q.sql)) return Promise.resolve(0 as T);
          return Promise.reject(databaseUnavailable(`this transaction is over: ${closed}`));
        }
        if (++statements > bounds.transactionMaxStatements && !(q && /^\s*(COMMIT|ROLLBACK)\b/i.test(q.sql))) {
          return Promise.reject(
            databaseUnavailable(`a transaction ran more than ${bounds.transactionMaxStatements} statements while holding the write lock; it is rolled back`),
          );
        }
        return run();
      };
      const tx: Transaction = {
        provider: adapter.provider,
        adapterName: adapter.adapterName,
        options: { usePhantomQuery: false },
        queryRaw: (q) => open(() => adapter.queryRaw(q), q),
        executeRaw: (q) => open(() => adapter.executeRaw(q), q),
        createSavepoint: (name) => open(() => adapter.executeRaw(statement(`SAVEPOINT ${name}`))).then(() => {}),
        rollbackToSavepoint: (name) => open(() => adapter.executeRaw(statement(`ROLLBACK TO ${name}`))).then(() => {}),
        releaseSavepoint: (name) => open(() => adapter.executeRaw(statement(`RELEASE SAVEPOINT ${name}`))).then(() => {}),
        commit: async () => {
          if (db.inTransaction && !closed) db.exec("COMMIT"); // normally Prisma's COMMIT statement already ran
          end("committed");
        },
        rollback: async () => {
          if (db.inTransaction && !closed) db.exec("ROLLBACK");
          end("rolled back");
        },
      };
      return tx;
    },
  };
}

const statement = (sql: string): SqlQuery => ({ sql, args: [], argTypes: [] });
