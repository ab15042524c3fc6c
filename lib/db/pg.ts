import pg from "pg";

/**
 * The app's own PostgreSQL pool, shared by Prisma's adapter and the ledger's hot path (lib/ledger/pg-hot-path.ts),
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
 * Every session: a transaction left idle (a frozen process, a bug) is ended by the server after 10 s, so that it
 * cannot hold row locks — or the event watermark, see lib/events/read-events.ts — for longer.
 */
const SESSION_OPTIONS = "-c idle_in_transaction_session_timeout=10000 -c TimeZone=UTC";

export function openPgPool(url: string, max = Number(process.env.PG_POOL_SIZE ?? 10)): PgDirect {
  const pool = new pg.Pool({ connectionString: url, max, options: SESSION_OPTIONS, application_name: process.env.STOPLINE_PROCESS_NAME ?? "stopline" });
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
