/**
 * `npm start` — one command from a fresh clone to a running Stopline:
 *   1. applies database migrations (creates the embedded SQLite database in data/ if absent;
 *      DATABASE_URL=postgresql://… uses PostgreSQL instead);
 *   2. runs `next build` only when there is no build or a build input changed since the last one;
 *   3. starts the server (scripts/start/serve.ts: Next.js in-process) on HOST:PORT — 127.0.0.1:3000 unless
 *      set — in its own process group, forwards SIGINT/SIGTERM/SIGHUP to that whole group and exits with the
 *      server's exit code. The server ends with this process however this one ends (a pipe on its stdin; even
 *      `kill -9` of npm start leaves nothing serving), and this process ends with the npm that ran it;
 *   4. prints the URL and how to sign in.
 * A port that is taken is reported before anything starts: by an earlier Stopline server of this directory
 * (its pid and how to stop it) or by another program.
 * `npm run dev` (`--dev`) runs the server in development mode instead of build + start.
 */
import path from "node:path";
import { migrate } from "../lib/db/migrate";
import { openDatabase } from "../lib/db/client";
import { seedDemoAccounts, type DemoAccount } from "../lib/auth/seed-demo-accounts";
import { PROJECT_ROOT, resolveDatabase } from "../lib/db/config";
import { resolveBootstrapToken, type BootstrapToken } from "./start/bootstrap-token";
import { buildNeeded, writeStamp } from "./start/build-stamp";
import { installSignalForwarding, runInOwnGroup, stopRequested, stopWithParent } from "./start/process-group";
import { findOwnServer, portIsFree, portTakenMessage } from "./start/stale-server";
import { demoAccountsStillPublished } from "../lib/auth/seed-demo-accounts";
import { startJsonLogs } from "../lib/observability/log";
import { retentionPolicy } from "../lib/retention/policy";

await startJsonLogs(); // STOPLINE_LOG_FORMAT=json: every line of this process is JSON from the first (lib/observability/log.ts)
const dev = process.argv.includes("--dev");
const port = Number(process.env.PORT || 3000);
if (!Number.isInteger(port) || port <= 0 || port > 65535) fail(`PORT must be a port number; got "${process.env.PORT}"`);
// Only this machine reaches a default start; HOST=0.0.0.0 (or an address) opens it to the network.
const host = process.env.HOST || "127.0.0.1";
const loopback = isLoopback(host);

const NEXT_BIN = path.join(PROJECT_ROOT, "node_modules", "next", "dist", "bin", "next");
const SERVE = path.join(PROJECT_ROOT, "scripts", "start", "serve.ts");
const log = (line: string) => console.log(`[stopline] ${line}`);

installSignalForwarding();
// Run by npm (`npm start`): if that npm is killed, stop too (and with us the server).
if (process.env.npm_lifecycle_event) stopWithParent();

// The retention policy (STOPLINE_RETENTION_DAYS, lib/retention): a bad value is an error now, not a surprise later.
try {
  const retention = retentionPolicy();
  log(
    retention.days === null
      ? "retention: every task is kept (STOPLINE_RETENTION_DAYS unset)"
      : `retention: settled tasks older than ${retention.days} day(s) are archived to ${retention.archiveDir}`,
  );
} catch (error) {
  fail((error as Error).message);
}

// 0. The port: say at once who holds it, instead of failing later with EADDRINUSE.
if (!(await portIsFree(port, host))) fail(portTakenMessage(port, host, findOwnServer(PROJECT_ROOT, port)));

// 1. Database.
const database = resolveDatabase();
log(`database: ${describeDatabase(database)}`);
try {
  const { applied } = await migrate(database.url);
  log(applied.length ? `applied ${applied.length} migration(s): ${applied.join(", ")}` : "migrations: up to date");
} catch (error) {
  fail(`could not migrate the database: ${(error as Error).message}`);
}

// Demo accounts, one per role, on the embedded database only (idempotent). Their passwords are published, so
// a server that others can reach (HOST not a loopback address) gets none — unless STOPLINE_DEMO_ACCOUNTS=1
// asks for them explicitly — and refuses to start while existing ones still have their published password.
let demo: DemoAccount[] = [];
const demoWanted = process.env.STOPLINE_DEMO_ACCOUNTS === "1" || (process.env.STOPLINE_DEMO_ACCOUNTS !== "0" && loopback);
if (database.provider === "sqlite" && process.env.STOPLINE_DEMO_ACCOUNTS !== "0") {
  const seeding = openDatabase(database.url);
  try {
    if (demoWanted) {
      const { created, accounts } = await seedDemoAccounts(seeding);
      demo = accounts;
      log(created.length ? `demo accounts created: ${created.join(", ")}` : "demo accounts: present");
    } else {
      log(
        `demo accounts: not created — HOST=${host} can be reached from other machines and their passwords are published (STOPLINE_DEMO_ACCOUNTS=1 creates them anyway)`,
      );
      const open = await demoAccountsStillPublished(seeding);
      if (open.length) {
        fail(
          [
            `refusing to serve on ${host}: these demo accounts still have their published passwords: ${open.join(", ")}.`,
            "Change their passwords or disable them (as admin, at /console/admin), or bind to 127.0.0.1 (unset HOST),",
            "or set STOPLINE_DEMO_ACCOUNTS=1 if you really mean to publish them.",
          ].join("\n           "),
        );
      }
    }
  } catch (error) {
    fail(`could not ${demoWanted ? "seed" : "check"} the demo accounts: ${(error as Error).message}`);
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

// 3. Serve. Its stdin is a pipe from this process: when this process is gone, however it ended, the server
// sees the pipe close and stops (scripts/start/serve.ts).
if (!(await portIsFree(port, host))) fail(portTakenMessage(port, host, findOwnServer(PROJECT_ROOT, port)));
const server = runInOwnGroup(process.execPath, ["--import", "tsx", SERVE, ...(dev ? ["--dev"] : [])], {
  cwd: PROJECT_ROOT,
  // NODE_ENV from the start: the server loads the API's handlers itself (its lane) before Next.js would set it.
  env: { ...serverEnv, NODE_ENV: dev ? "development" : "production", PORT: String(port), HOST: host, STOPLINE_PARENT_PIPE: "1" },
  stdio: ["pipe", "inherit", "inherit"],
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
      await fetch(`${localUrl()}/`, { signal: AbortSignal.timeout(dev ? 120_000 : 5_000) });
      printSignIn(port, token);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  if (!stopRequested()) log(`the server does not answer on port ${port} yet; see its output above`);
}

/** Where this machine reaches the server (a wildcard address is reached on loopback). */
function localUrl() {
  const h = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  return `http://${h.includes(":") ? `[${h}]` : h}:${port}`;
}

function isLoopback(h: string) {
  return h === "localhost" || /^127\.\d+\.\d+\.\d+$/.test(h) || h === "::1" || h === "[::1]";
}

function printSignIn(port: number, token: BootstrapToken | null) {
  const url = loopback ? `http://localhost:${port}` : localUrl().replace("127.0.0.1", host === "0.0.0.0" ? "<this machine's address>" : "127.0.0.1");
  const lines = [
    "",
    `  Stopline is running at ${url}${dev ? "  (development mode)" : ""}`,
    loopback ? `  (listening on ${host} only: set HOST=0.0.0.0 to serve other machines)` : `  (listening on ${host}: reachable from other machines)`,
    "",
    `  Chat:      ${url}/chat — people with the user role talk to the agent and press Stop`,
    `  Console:   ${url}/console — operators, support and admins (sign in with an account, or an admin API token)`,
  ];
  if (token?.source === "env") {
    lines.push("  Token:     the value of STOPLINE_BOOTSTRAP_TOKEN");
  } else if (token) {
    const where = path.relative(PROJECT_ROOT, token.file ?? "");
    lines.push(`  Token:     ${token.token}`);
    lines.push(
      `             (${token.source === "generated" ? "generated at this first start and saved in" : "kept in"} ${where}; set STOPLINE_BOOTSTRAP_TOKEN to use your own)`,
    );
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
