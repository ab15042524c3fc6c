/**
 * The admin token a person signs in with on a first start.
 *
 * - STOPLINE_BOOTSTRAP_TOKEN set: that one is used (never printed back: the person already has it).
 * - Unset, on the embedded SQLite default: one is generated at the first start and kept in
 *   data/bootstrap-token (mode 0600), and the same one is reused on later starts, so
 *   `npm install && npm start` on a fresh clone gives a way in with nothing to configure.
 * - Unset, on PostgreSQL: none. A shared database serves several instances, each with its own disk; a
 *   per-machine file would give each instance a different "bootstrap" token. Set the variable instead,
 *   or create a token with `npm run token:create`.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

export type BootstrapToken = { token: string; source: "env" | "file" | "generated"; file?: string };

export function newToken(): string {
  return `stl_${randomBytes(32).toString("base64url")}`;
}

export function resolveBootstrapToken(options: {
  env: Record<string, string | undefined>;
  provider: "sqlite" | "postgres";
  /** Where the generated token is kept, e.g. <root>/data/bootstrap-token. */
  file: string;
}): BootstrapToken | null {
  const fromEnv = options.env.STOPLINE_BOOTSTRAP_TOKEN?.trim();
  if (fromEnv) return { token: fromEnv, source: "env" };
  if (options.provider !== "sqlite") return null;

  const stored = readToken(options.file);
  if (stored) return { token: stored, source: "file", file: options.file };

  mkdirSync(path.dirname(options.file), { recursive: true });
  const token = newToken();
  try {
    // "wx": if two starts race, exactly one writes and the other reads the winner's token.
    writeFileSync(options.file, `${token}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const winner = readToken(options.file);
    if (winner) return { token: winner, source: "file", file: options.file };
    throw new Error(`${options.file} exists but holds no token; delete it to generate a new one`);
  }
  return { token, source: "generated", file: options.file };
}

function readToken(file: string): string | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  chmodSync(file, 0o600); // whoever copied it in may have left it world-readable
  return text.trim() || null;
}
