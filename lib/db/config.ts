import path from "node:path";

// Inside Next's server bundle import.meta.dirname is undefined; the server runs from the project root.
export const PROJECT_ROOT = import.meta.dirname ? path.resolve(import.meta.dirname, "..", "..") : process.cwd();
export const DEFAULT_SQLITE_URL = "file:./data/stopline.db";

export type DatabaseTarget = { provider: "sqlite"; url: string; file: string } | { provider: "postgres"; url: string };

/**
 * Which database a URL names. SQLite `file:` paths are resolved against the project root, not the current
 * directory (the adapter would resolve them against the cwd, which differs between `next start`, scripts
 * and tests).
 */
export function resolveDatabase(url = process.env.DATABASE_URL || DEFAULT_SQLITE_URL): DatabaseTarget {
  if (/^postgres(ql)?:\/\//.test(url)) return { provider: "postgres", url };
  if (url.startsWith("file:")) {
    const raw = url.slice("file:".length);
    const file = raw === ":memory:" ? raw : path.resolve(PROJECT_ROOT, raw);
    return { provider: "sqlite", url: `file:${file}`, file };
  }
  throw new Error(`DATABASE_URL must start with file: (SQLite) or postgresql:// (PostgreSQL); got "${url}"`);
}
