/**
 * `npm test` — every suite, in order; fails if any fails:
 *   0. typecheck   tsc --noEmit over the whole tree (tests, scripts and benchmarks included; `next build`
 *                  checks only the app, see tsconfig.build.json)
 *   1. unit        vitest --project unit
 *   2. sqlite      vitest --project sqlite      (integration tests, *.int.test.ts, on SQLite)
 *   3. postgres    vitest --project postgres    (the same tests on PostgreSQL) — TEST_PG_URL if set, else a
 *                  server answering at 127.0.0.1:5432; otherwise SKIPPED with a loud banner (a failure when
 *                  REQUIRE_PG=1, as in CI)
 *   4. e2e         playwright test              (Chromium against a server playwright.config.ts starts)
 * The closing line counts suites, not tests.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import pg from "pg";

const ROOT = path.resolve(import.meta.dirname, "..");
const BIN = path.join(ROOT, "node_modules", ".bin");
const LOCAL_PG_URL = "postgresql://postgres@127.0.0.1:5432/postgres";

type Outcome = "passed" | "failed" | "skipped";
const results: Array<{ suite: string; outcome: Outcome; note?: string }> = [];

async function run(suite: string, command: string, args: string[], env: Record<string, string> = {}) {
  console.log(`\n━━━ ${suite}: ${path.basename(command)} ${args.join(" ")}\n`);
  const code = await new Promise<number>((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: "inherit", env: { ...process.env, ...env } });
    child.once("error", (error) => {
      console.error(`[test] could not run ${command}: ${error.message}`);
      resolve(1);
    });
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
  results.push({ suite, outcome: code === 0 ? "passed" : "failed", note: code === 0 ? undefined : `exit ${code}` });
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

function banner(lines: string[]) {
  const width = Math.max(...lines.map((l) => l.length)) + 4;
  const bar = "!".repeat(width + 2);
  console.log(["", bar, ...lines.map((l) => `!! ${l.padEnd(width - 2)}!!`), bar, ""].join("\n"));
}

const vitest = path.join(BIN, "vitest");

await run("typecheck", path.join(BIN, "tsc"), ["--noEmit", "-p", "."]);
await run("unit", vitest, ["run", "--project", "unit"]);
await run("sqlite", vitest, ["run", "--project", "sqlite"]);

let pgUrl = process.env.TEST_PG_URL;
if (!pgUrl && (await answers(LOCAL_PG_URL))) pgUrl = LOCAL_PG_URL;
if (pgUrl) {
  await run("postgres", vitest, ["run", "--project", "postgres"], { TEST_PG_URL: pgUrl });
} else {
  const required = process.env.REQUIRE_PG === "1";
  banner([
    "POSTGRESQL SUITE SKIPPED",
    "No TEST_PG_URL, and no PostgreSQL server answers at 127.0.0.1:5432.",
    "The integration tests ran on SQLite only.",
    "Start PostgreSQL or set TEST_PG_URL=postgresql://… to run them on PostgreSQL.",
    ...(required ? ["REQUIRE_PG=1: this counts as a FAILURE."] : []),
  ]);
  results.push({ suite: "postgres", outcome: required ? "failed" : "skipped", note: "no PostgreSQL server" });
}

await run("e2e", path.join(BIN, "playwright"), ["test"]);

const count = (o: Outcome) => results.filter((r) => r.outcome === o).length;
console.log("\n━━━ summary (suites, not tests)");
for (const r of results) console.log(`  ${r.outcome.padEnd(7)} ${r.suite}${r.note ? `  (${r.note})` : ""}`);
const skipped = count("skipped");
console.log(`suites: ${count("passed")} passed, ${count("failed")} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(count("failed") > 0 ? 1 : 0);
