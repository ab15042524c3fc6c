import pg from "pg";

/**
 * The app's own PostgreSQL pool, shared by Prisma's adapter and the ledger's hot path (lib/ledger/sql/),
 * which talks to `pg` directly: through Prisma's query executor each statement costs about a millisecond of Node
 * CPU on these machines, `pg` a fraction of that.
 */
export interface PgDirect {
  readonly pool: pg.Pool;
  /** One statement on a pooled connection (autocommit). `name` makes it a prepared statement per connection. */
  query<R = Record<string, unknown>>(sql: string, params?: unknown[], name?: string): Promise<R[]>;
  /** Runs `fn` inside BEGIN … COMMIT on one connection (ROLLBACK when it throws). */
  transaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T>;
}

// Prisma stores DateTime as `timestamp(3)` (no time zone) in UTC. pg's default parser reads such a value as
// local time; these parsers read it as UTC, whatever the process's TZ is. Per query, so Prisma's adapter (which
// parses its own results) is not affected.
const TIMESTAMP = 1114;
const TIMESTAMPTZ = 1184;
const parseUtc = (value: string) => new Date(`${value.replace(" ", "T")}Z`);
export const PG_TYPES = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === TIMESTAMP) return parseUtc;
    if (oid === TIMESTAMPTZ) return (value: string) => new Date(value);
    return pg.types.getTypeParser(oid, format);
  },
} as unknown as pg.CustomTypesConfig;

/**
 * What one frozen or stuck client may hold up, at most (issue 11): a transaction left idle (a process stopped by
 * SIGSTOP or a debugger, a bug) is ended by the server after 10 s, so that it cannot hold row locks — or the
 * event watermark, see lib/events/read-events.ts — for longer; nobody waits for a lock longer than 5 s, and no
 * statement runs longer than 60 s. Failures answer 503 with Retry-After (lib/db/unavailable.ts).
 */
export interface PgSessionBounds {
  idleInTransactionMs: number;
  lockTimeoutMs: number;
  statementTimeoutMs: number;
  /** Longest wait for a new connection (the server down or unreachable). */
  connectionTimeoutMs: number;
}

export function pgSessionBoundsFromEnv(overrides: Partial<PgSessionBounds> = {}): PgSessionBounds {
  const num = (name: string, fallback: number) => {
    const v = Number(process.env[name]);
    return Number.isInteger(v) && v > 0 ? v : fallback;
  };
  return {
    idleInTransactionMs: num("STOPLINE_PG_IDLE_IN_TRANSACTION_MS", 10_000),
    lockTimeoutMs: num("STOPLINE_PG_LOCK_TIMEOUT_MS", 5_000),
    statementTimeoutMs: num("STOPLINE_PG_STATEMENT_TIMEOUT_MS", 60_000),
    connectionTimeoutMs: num("STOPLINE_PG_CONNECT_TIMEOUT_MS", 5_000),
    ...overrides,
  };
}

export function openPgPool(url: string, max = Number(process.env.PG_POOL_SIZE ?? 10), bounds: PgSessionBounds = pgSessionBoundsFromEnv()): PgDirect {
  const options = [
    `-c idle_in_transaction_session_timeout=${bounds.idleInTransactionMs}`,
    `-c lock_timeout=${bounds.lockTimeoutMs}`,
    `-c statement_timeout=${bounds.statementTimeoutMs}`,
    "-c TimeZone=UTC",
  ].join(" ");
  const pool = new pg.Pool({
    connectionString: url,
    max,
    options,
    connectionTimeoutMillis: bounds.connectionTimeoutMs,
    application_name: process.env.STOPLINE_PROCESS_NAME ?? "stopline",
  });
  // An idle pooled connection that the server closed (restart, timeout) must not crash the process; the pool
  // replaces it on the next checkout.
  pool.on("error", (error) => console.error("PostgreSQL pool: an idle connection failed", error.message));
  return {
    pool,
    async query<R>(sql: string, params: unknown[] = [], name?: string) {
      const result = await pool.query<R & pg.QueryResultRow>({ text: sql, values: params, name, types: PG_TYPES });
      return result.rows;
    },
    async transaction<T>(fn: (client: pg.PoolClient) => Promise<T>) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await fn(client);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
  };
}

/** A statement in a transaction of `transaction()` (same typed results as `query`). */
export async function queryIn<R = Record<string, unknown>>(client: pg.PoolClient, sql: string, params: unknown[] = [], name?: string): Promise<R[]> {
  const result = await client.query<R & pg.QueryResultRow>({ text: sql, values: params, name, types: PG_TYPES });
  return result.rows;
}

/**
 * PostgreSQL aborted the statement to break a deadlock (40P01) or a serialization conflict (40001): nothing of it
 * committed, and the same statement sent again may well succeed.
 */
export function isTransientPgError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "40P01" || code === "40001";
}

/**
 * Sends a statement (`send`) again when PostgreSQL aborted it as a deadlock victim or a serialization failure —
 * nothing of it committed — up to `attempts` times in all; any other error, or the last, is thrown.
 */
export async function sendAgainIfTransient<T>(send: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (attempt >= attempts || !isTransientPgError(error)) throw error;
    }
  }
}
