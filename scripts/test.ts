/**
 * `npm test` — its own set-up, then every suite, in order; fails if any fails:
 *   set-up        the browser the e2e suite and bench:stop-ui need (scripts/test/browser.ts: Debian's Chromium —
 *                 installed with apt-get when this process may — or the one shipped in an npm package), said in
 *                 one line; and whether PostgreSQL answers
 *   0. typecheck  tsc --noEmit over the whole tree (tests, scripts and benchmarks included; `next build`
 *                 checks only the app, see tsconfig.build.json)
 *      lint       biome check . (format and lint, biome.jsonc; `npm run format` rewrites the tree to the format)
 *   1. unit       vitest --project unit
 *   2. sqlite     vitest --project sqlite      (integration tests, *.int.test.ts, on SQLite)
 *   3. postgres   vitest --project postgres    (the same tests on PostgreSQL) — TEST_PG_URL if set, else a
 *                 server answering at 127.0.0.1:5432; otherwise SKIPPED with a loud banner (a failure when
 *                 REQUIRE_PG=1, as in CI)
 *   4. e2e        playwright test              (Chromium against a server playwright.config.ts starts)
 *   5. benches    every `npm run bench:*` in its smoke size (BENCH_SMOKE=1, seconds each): it must finish and
 *                 print its JSON line of figures (scripts/test/benches.ts); bench:pg with PostgreSQL, as above
 * The closing line counts suites, not tests.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import pg from "pg";
import { benchOutputProblem, BENCHES } from "./test/benches";
import { ensureBrowser } from "./test/browser";

const ROOT = path.resolve(import.meta.dirname, "..");
const BIN = path.join(ROOT, "node_modules", ".bin");
const LOCAL_PG_URL = "postgresql://postgres@127.0.0.1:5432/postgres";

type Outcome = "passed" | "failed" | "skipped";
const results: Array<{ suite: string; outcome: Outcome; note?: string; seconds?: number }> = [];

/** Runs a suite; with `check`, its standard output is also kept and judged (it is still shown as it comes). */
async function run(suite: string, command: string, args: string[], env: Record<string, string> = {}, check?: (stdout: string) => string | null) {
  console.log(`\n━━━ ${suite}: ${path.basename(command)} ${args.join(" ")}\n`);
  const started = Date.now();
  let stdout = "";
  const code = await new Promise<number>((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ["inherit", check ? "pipe" : "inherit", "inherit"], env: { ...process.env, ...env } });
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      process.stdout.write(chunk);
    });
    child.once("error", (error) => {
      console.error(`[test] could not run ${command}: ${error.message}`);
      resolve(1);
    });
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
  const problem = code !== 0 ? `exit ${code}` : (check?.(stdout) ?? null);
  results.push({ suite, outcome: problem ? "failed" : "passed", note: problem ?? undefined, seconds: Math.round((Date.now() - started) / 1000) });
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

// ---- set-up ------------------------------------------------------------------------------------------------
console.log("━━━ set-up");
const browser = await ensureBrowser();
console.log(browser.line);
let pgUrl = process.env.TEST_PG_URL;
if (!pgUrl && (await answers(LOCAL_PG_URL))) pgUrl = LOCAL_PG_URL;
console.log(pgUrl ? `postgresql: ${pgUrl.replace(/:[^:@/]*@/, ":***@")}` : "postgresql: none answers (TEST_PG_URL unset, nothing at 127.0.0.1:5432)");
const requirePg = process.env.REQUIRE_PG === "1";
const noPg = (suite: string) => results.push({ suite, outcome: requirePg ? "failed" : "skipped", note: "no PostgreSQL server" });
const noBrowser = (suite: string) => results.push({ suite, outcome: "failed", note: "no browser — see the set-up line" });

// ---- suites ------------------------------------------------------------------------------------------------
const vitest = path.join(BIN, "vitest");

await run("typecheck", path.join(BIN, "tsc"), ["--noEmit", "-p", "."]);
await run("lint", path.join(BIN, "biome"), ["check", "."]);
await run("unit", vitest, ["run", "--project", "unit"]);
await run("sqlite", vitest, ["run", "--project", "sqlite"]);

if (pgUrl) {
  await run("postgres", vitest, ["run", "--project", "postgres"], { TEST_PG_URL: pgUrl });
} else {
  banner([
    "POSTGRESQL SUITE SKIPPED",
    "No TEST_PG_URL, and no PostgreSQL server answers at 127.0.0.1:5432.",
    "The integration tests ran on SQLite only (and bench:pg does not run).",
    "Start PostgreSQL or set TEST_PG_URL=postgresql://… to run them on PostgreSQL.",
    ...(requirePg ? ["REQUIRE_PG=1: this counts as a FAILURE."] : []),
  ]);
  noPg("postgres");
}

const browserEnv: Record<string, string> = browser.path ? { STOPLINE_CHROMIUM: browser.path } : {};
if (browser.path) await run("e2e", path.join(BIN, "playwright"), ["test"], browserEnv);
else noBrowser("e2e");

for (const bench of BENCHES) {
  const suite = `${bench.script} (smoke)`;
  if (bench.needs === "postgres" && !pgUrl) noPg(suite);
  else if (bench.needs === "browser" && !browser.path) noBrowser(suite);
  else
    await run(
      suite,
      "npm",
      ["run", "--silent", bench.script],
      { BENCH_SMOKE: "1", ...browserEnv, ...(pgUrl ? { TEST_PG_URL: pgUrl } : {}) },
      benchOutputProblem,
    );
}

const count = (o: Outcome) => results.filter((r) => r.outcome === o).length;
console.log("\n━━━ summary (suites, not tests)");
console.log(`  ${browser.line}`);
for (const r of results) console.log(`  ${r.outcome.padEnd(7)} ${r.suite}${r.seconds !== undefined ? ` ${r.seconds} s` : ""}${r.note ? `  (${r.note})` : ""}`);
const skipped = count("skipped");
console.log(`suites: ${count("passed")} passed, ${count("failed")} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(count("failed") > 0 ? 1 : 0);
