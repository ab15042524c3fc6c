/**
 * `npm start` — one command from a fresh clone to a running Stopline:
 *   1. applies database migrations (creates the embedded SQLite database in data/ if absent;
 *      DATABASE_URL=postgresql://… uses PostgreSQL instead);
 *   2. runs `next build` only when there is no build or a build input changed since the last one;
 *   3. starts `next start` on PORT (default 3000) in its own process group, forwards SIGINT/SIGTERM/SIGHUP
 *      to that whole group and exits with the server's exit code;
 *   4. prints the URL and how to sign in.
 * `npm run dev` (`--dev`) runs `next dev` instead of build + start.
 */
import path from "node:path";
import { migrate } from "../lib/db/migrate";
import { openDatabase } from "../lib/db/client";
import { seedDemoAccounts, type DemoAccount } from "../lib/auth/seed-demo-accounts";
import { PROJECT_ROOT, resolveDatabase } from "../lib/db/config";
import { resolveBootstrapToken, type BootstrapToken } from "./start/bootstrap-token";
import { buildNeeded, writeStamp } from "./start/build-stamp";
import { installSignalForwarding, runInOwnGroup, stopRequested } from "./start/process-group";

const dev = process.argv.includes("--dev");
const port = Number(process.env.PORT || 3000);
if (!Number.isInteger(port) || port <= 0 || port > 65535) fail(`PORT must be a port number; got "${process.env.PORT}"`);

const NEXT_BIN = path.join(PROJECT_ROOT, "node_modules", "next", "dist", "bin", "next");
const log = (line: string) => console.log(`[stopline] ${line}`);

installSignalForwarding();

// 1. Database.
const database = resolveDatabase();
log(`database: ${describeDatabase(database)}`);
try {
  const { applied } = await migrate(database.url);
  log(applied.length ? `applied ${applied.length} migration(s): ${applied.join(", ")}` : "migrations: up to date");
} catch (error) {
  fail(`could not migrate the database: ${(error as Error).message}`);
}

// Demo accounts, one per role, on the embedded database only (idempotent).
let demo: DemoAccount[] = [];
if (database.provider === "sqlite" && process.env.STOPLINE_DEMO_ACCOUNTS !== "0") {
  const seeding = openDatabase(database.url);
  try {
    const { created, accounts } = await seedDemoAccounts(seeding);
    demo = accounts;
    log(created.length ? `demo accounts created: ${created.join(", ")}` : "demo accounts: present");
  } catch (error) {
    fail(`could not seed the demo accounts: ${(error as Error).message}`);
  } finally {
    await seeding.close();
  }
}

const bootstrap = resolveBootstrapToken({
  env: process.env,
  provider: database.provider,
  file: path.join(PROJECT_ROOT, "data", "bootstrap-token"),
});

const serverEnv: NodeJS.ProcessEnv = {
  ...process.env,
  // Absolute, so the server and every script agree on the file whatever their working directory.
  DATABASE_URL: database.url,
  NEXT_TELEMETRY_DISABLED: process.env.NEXT_TELEMETRY_DISABLED ?? "1",
  ...(bootstrap ? { STOPLINE_BOOTSTRAP_TOKEN: bootstrap.token } : {}),
};

// 2. Build, only if needed.
if (!dev) {
  const reason = buildNeeded(PROJECT_ROOT);
  if (reason) {
    log(`building (${reason}) …`);
    const build = await runInOwnGroup(process.execPath, [NEXT_BIN, "build"], { cwd: PROJECT_ROOT, env: serverEnv });
    if (stopRequested()) process.exit(build.code);
    if (build.code !== 0) fail(`next build failed (exit ${build.code})`, build.code);
    writeStamp(PROJECT_ROOT);
  } else {
    log("build: up to date");
  }
}

// The in-process worker pool, the cancellation engine and the demo services start inside the server process
// (instrumentation.ts → lib/runtime/background.ts), so they share its in-process commit notifications.

// 3. Serve.
const server = runInOwnGroup(process.execPath, [NEXT_BIN, dev ? "dev" : "start", "--port", String(port)], {
  cwd: PROJECT_ROOT,
  env: serverEnv,
});
void announceWhenReady(port, bootstrap);
const exit = await server;
// Say how the server ended: a silent exit (or a kill by signal) is otherwise impossible to diagnose.
log(`server exited with ${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`}`);
process.exit(exit.code);

// ─────────────────────────────────────────────────────────────────────────────────────────────────────

async function announceWhenReady(port: number, token: BootstrapToken | null) {
  const deadline = Date.now() + (dev ? 180_000 : 60_000);
  while (Date.now() < deadline && !stopRequested()) {
    try {
      await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(dev ? 120_000 : 5_000) });
      printSignIn(port, token);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  if (!stopRequested()) log(`the server does not answer on port ${port} yet; see its output above`);
}

function printSignIn(port: number, token: BootstrapToken | null) {
  const url = `http://localhost:${port}`;
  const lines = [
    "",
    `  Stopline is running at ${url}${dev ? "  (development mode)" : ""}`,
    "",
    `  Console:   ${url}/console — sign in with an admin API token`,
  ];
  if (token?.source === "env") {
    lines.push("  Token:     the value of STOPLINE_BOOTSTRAP_TOKEN");
  } else if (token) {
    const where = path.relative(PROJECT_ROOT, token.file ?? "");
    lines.push(`  Token:     ${token.token}`);
    lines.push(`             (${token.source === "generated" ? "generated at this first start and saved in" : "kept in"} ${where}; set STOPLINE_BOOTSTRAP_TOKEN to use your own)`);
  } else {
    lines.push("  Token:     none yet — set STOPLINE_BOOTSTRAP_TOKEN for a first sign-in, or create one (below)");
  }
  lines.push("  New token: npm run token:create -- --role admin --name me");
  if (demo.length) {
    lines.push("", `  People:    ${url}/sign-in — demo accounts (one per role; embedded database only):`);
    for (const a of demo) lines.push(`             ${a.role.padEnd(9)} ${a.email.padEnd(26)} password: ${a.password}`);
  }
  lines.push(`  API docs:  ${url}/api-docs`);
  lines.push("");
  console.log(lines.join("\n"));
}

function describeDatabase(target: ReturnType<typeof resolveDatabase>): string {
  if (target.provider === "sqlite") return `SQLite ${path.relative(PROJECT_ROOT, target.file) || target.file}`;
  const url = new URL(target.url);
  if (url.password) url.password = "***";
  return `PostgreSQL ${url.toString()}`;
}

function fail(message: string, code = 1): never {
  console.error(`[stopline] ${message}`);
  process.exit(code);
}
