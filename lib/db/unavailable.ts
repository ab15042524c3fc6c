import { AppError, ErrorCode } from "../errors";

/**
 * Is this error the database being unavailable (down, unreachable, overloaded, locked by another process, or
 * too slow for a transaction's time bound) rather than a fault of the request? Those answer 503 with
 * Retry-After (lib/api/http-errors.ts) — the client may simply try again — instead of a 500.
 *
 * Recognised, through the error's `cause` chain:
 * - Prisma's connection and pool errors (P1001 can't reach, P1002/P1008 timed out, P1017 server closed the
 *   connection, P2024 no connection from the pool in time, P2028 the transaction exceeded its time bound);
 * - the driver adapters' error kinds (DatabaseNotReachable, ConnectionClosed, SocketTimeout — which is how the
 *   SQLite adapter reports SQLITE_BUSY —, TooManyConnections, TlsConnectionError);
 * - PostgreSQL SQLSTATEs of class 08 (connection exception), 57P01–57P03 (shutting down, cannot connect now),
 *   55P03 (lock_timeout: a lock held too long by another session), 57014 (statement_timeout),
 *   53300 (too many connections);
 * - SQLite's BUSY/LOCKED/IOERR/CANTOPEN/FULL from better-sqlite3 directly (the ledger's hot path);
 * - socket errors (ECONNREFUSED, ECONNRESET, ETIMEDOUT, EPIPE, EHOSTUNREACH) and pg's "Connection terminated".
 */
const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024", "P2028"]);
const ADAPTER_KINDS = new Set([
  "DatabaseNotReachable",
  "ConnectionClosed",
  "SocketTimeout",
  "TooManyConnections",
  "TlsConnectionError",
  "TransactionAlreadyClosed",
]);
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);
const SQLITE_PREFIXES = ["SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_IOERR", "SQLITE_CANTOPEN", "SQLITE_FULL", "SQLITE_PROTOCOL"];

/** Seconds a client should wait before retrying after the database was unavailable. */
export const DATABASE_RETRY_AFTER_S = 2;

export function isDatabaseUnavailable(error: unknown): boolean {
  return unavailableReason(error) !== null;
}

/** Why the database is unavailable, in a person's words — or null when the error is something else. */
export function unavailableReason(error: unknown): string | null {
  let e: unknown = error;
  for (let depth = 0; e && typeof e === "object" && depth < 6; depth++) {
    const x = e as {
      code?: unknown;
      kind?: unknown;
      message?: unknown;
      cause?: unknown;
      driverAdapterError?: unknown;
      meta?: { driverAdapterError?: unknown };
      originalCode?: unknown;
    };
    const code = typeof x.code === "string" ? x.code : null;
    // A SQLSTATE: from Prisma's adapter (kind "postgres", or originalCode), or a raw `pg` error (the hot path).
    const rawPg = code && /^[0-9A-Z]{5}$/.test(code) && typeof (e as { severity?: unknown }).severity === "string";
    const pgCode = (x.kind === "postgres" || rawPg) && code ? code : typeof x.originalCode === "string" ? x.originalCode : null;
    if (pgCode === "55P03") return "another database session held a lock for longer than the lock timeout — a stuck or frozen process";
    if (pgCode === "57014") return "a statement ran longer than the statement timeout";
    if (pgCode && /^(08|57P0[123]|53300)/.test(pgCode)) return "the database server is not accepting connections";
    if (code === "P2024") return "no database connection became free in time";
    if (code === "P2028") return "a transaction could not start or finish within its time bound";
    if (code && PRISMA_CODES.has(code)) return "the database server cannot be reached";
    if (code && SOCKET_CODES.has(code)) return "the connection to the database failed";
    if (code && SQLITE_PREFIXES.some((p) => code.startsWith(p))) return `the embedded database reported ${code}`;
    if (typeof x.kind === "string" && ADAPTER_KINDS.has(x.kind))
      return x.kind === "SocketTimeout" ? "the database did not answer in time" : "the connection to the database failed";
    if (
      typeof x.message === "string" &&
      /Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Can't reach database server/i.test(x.message)
    ) {
      return "the connection to the database failed";
    }
    e = x.driverAdapterError ?? x.meta?.driverAdapterError ?? x.cause;
  }
  return null;
}

/**
 * The error as a 503, if it is the database being unavailable: an `unavailable` AppError anywhere in its cause
 * chain (the SQLite adapter's bounded waits throw one; Prisma or Better Auth may wrap it), or a driver error
 * unavailableReason recognises. Null for every other error.
 */
export function asUnavailable(error: unknown): AppError | null {
  let e: unknown = error;
  for (let depth = 0; e && typeof e === "object" && depth < 6; depth++) {
    if (e instanceof AppError) return e.code === ErrorCode.unavailable ? e : null;
    const x = e as { code?: unknown; message?: unknown; cause?: unknown };
    // Prisma re-throws an adapter's error as its own, keeping the code and ending the message with ours.
    if (x.code === ErrorCode.unavailable && typeof x.message === "string") {
      const message = x.message.trim().split("\n").at(-1)!.trim();
      return new AppError(ErrorCode.unavailable, message, { retryAfterSeconds: DATABASE_RETRY_AFTER_S, dependency: "database" });
    }
    e = x.cause;
  }
  const reason = unavailableReason(error);
  return reason ? databaseUnavailable(reason) : null;
}

/** The one AppError for "the database cannot answer now". */
export function databaseUnavailable(detail?: string): AppError {
  return new AppError(
    ErrorCode.unavailable,
    `the database is not available right now${detail ? `: ${detail}` : ""}. This request was not confirmed — try again in a few seconds`,
    { retryAfterSeconds: DATABASE_RETRY_AFTER_S, dependency: "database" },
  );
}
