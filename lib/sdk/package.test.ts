import { execFile, execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";

/**
 * @stopline/sdk as a published package would be used: `npm run build:sdk`, `npm pack`, `npm install <tarball>` into
 * an EMPTY project, then the README's 5-minute quick start — copied from the README, unchanged — run with plain
 * Node against a real `npm start` (its own port and database; its process group ended afterwards).
 */

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const run = promisify(execFile);
// The build lives inside the repository (output/ is not committed); the install happens in an empty temp project.
const OUT = path.join(ROOT, "output", "sdk-package-test");
const PROJECT = mkdtempSync(path.join(tmpdir(), "stopline-sdk-install-"));
const TOKEN = "sdk-package-test-admin-token-0123456789";
let server: ChildProcess | null = null;
afterAll(async () => {
  if (server?.pid) {
    try {
      process.kill(-server.pid, "SIGTERM"); // the whole process group: tsx, next-server
    } catch {
      /* already gone */
    }
    await new Promise((r) => setTimeout(r, 500));
    try {
      process.kill(-server.pid, "SIGKILL");
    } catch {
      /* ended */
    }
  }
  rmSync(OUT, { recursive: true, force: true });
  rmSync(PROJECT, { recursive: true, force: true });
});

const { NODE_CHANNEL_FD: _ipc, ...env } = process.env;

it("build:sdk makes a package of its own: two ESM entry points whose only bare imports are zod and eventsource-parser, types for both, README, CHANGELOG, semver", () => {
  execFileSync(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts", "build-sdk.ts"), OUT], { env, stdio: "pipe" });
  const bundles = readdirSync(OUT).filter((f) => f.endsWith(".mjs"));
  expect(bundles).toEqual(expect.arrayContaining(["index.mjs", "ai.mjs"]));
  const bare = new Set<string>();
  for (const file of bundles) {
    const code = readFileSync(path.join(OUT, file), "utf8");
    // ESM import statements (esbuild writes one per line): `import … from "x";` and `import "x";`
    for (const m of code.matchAll(/^import\b[^;"]*?(?:from\s*)?"([^"]+)";?$/gm)) if (!m[1].startsWith(".")) bare.add(m[1]);
    expect(code).not.toMatch(/prisma|better-sqlite3|from "pg"|from "node:|from "ai"/);
  }
  expect([...bare].sort()).toEqual(["eventsource-parser/stream", "zod"]);
  const pkg = JSON.parse(readFileSync(path.join(OUT, "package.json"), "utf8"));
  expect(pkg).toMatchObject({
    name: "@stopline/sdk", type: "module",
    exports: { ".": { import: "./index.mjs", types: "./index.d.ts" }, "./ai": { import: "./ai.mjs", types: "./ai.d.ts" } },
    peerDependenciesMeta: { ai: { optional: true } },
  });
  expect(pkg.version).toMatch(/^\d+\.\d+\.\d+$/);
  expect(Object.keys(pkg.dependencies).sort()).toEqual(["eventsource-parser", "zod"]);
  expect(readFileSync(path.join(OUT, "CHANGELOG.md"), "utf8")).toContain(`## ${pkg.version}`);
  for (const f of ["index.d.ts", "ai.d.ts", "README.md", "types/lib/sdk/ai.d.ts"]) expect(existsSync(path.join(OUT, f)), f).toBe(true);
}, 120_000);

it("the packed tarball installs into an empty project, and the README's quick start runs against npm start: Stop → CANCELLED with the partial count", async () => {
  const packed = (await run("npm", ["pack", OUT, "--pack-destination", PROJECT], { env, cwd: PROJECT })).stdout.trim().split("\n").pop()!;
  writeFileSync(path.join(PROJECT, "package.json"), JSON.stringify({ name: "sdk-quickstart", private: true, type: "module" }, null, 2));
  await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", path.join(PROJECT, packed)], { env, cwd: PROJECT, timeout: 180_000 });
  expect(existsSync(path.join(PROJECT, "node_modules", "@stopline", "sdk", "ai.mjs"))).toBe(true);
  // both entry points resolve through the exports map from the installed package
  const probe = await run(process.execPath, ["--input-type=module", "-e", 'const a = await import("@stopline/sdk"); const b = await import("@stopline/sdk/ai"); console.log(typeof a.StoplineClient, typeof a.runWorker, typeof b.createStopline)'], { env, cwd: PROJECT });
  expect(probe.stdout.trim()).toBe("function function function");

  // The quick start, exactly as the README shows it.
  const readme = readFileSync(path.join(ROOT, "lib", "sdk", "README.md"), "utf8");
  const quickstart = /<!-- quickstart -->\s*```js\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(quickstart, "the README's quick start block").toBeTruthy();
  writeFileSync(path.join(PROJECT, "quickstart.mjs"), quickstart!);

  // A real npm start on its own port, database and process group.
  const port = await freePort();
  const db = path.join(PROJECT, "stopline.db");
  const { STOPLINE_MCP_CONFIG: _mcp, DATABASE_URL: _db, ...serverEnv } = env;
  server = spawn("npm", ["start"], {
    cwd: ROOT, detached: true, stdio: ["ignore", "pipe", "pipe"],
    env: { ...serverEnv, PORT: String(port), DATABASE_URL: `file:${db}`, STOPLINE_BOOTSTRAP_TOKEN: TOKEN, STOPLINE_DEMO: "0", STOPLINE_DEMO_ACCOUNTS: "0" },
  });
  let log = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not come up within 240 s:\n${log.slice(-3000)}`)), 240_000);
    const onData = (d: Buffer) => {
      log += d.toString();
      if (log.includes("Stopline is running at")) {
        clearTimeout(timer);
        resolve();
      }
    };
    server!.stdout!.on("data", onData);
    server!.stderr!.on("data", onData);
    server!.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code}):\n${log.slice(-3000)}`));
    });
  });

  const out = await run(process.execPath, ["quickstart.mjs"], { env: { ...env, STOPLINE_URL: `http://127.0.0.1:${port}`, STOPLINE_TOKEN: TOKEN }, cwd: PROJECT, timeout: 60_000 });
  const [line, calls] = out.stdout.trim().split("\n");
  expect(line).toMatch(/^CANCELLED — Stopped new work\./);
  const cancelled = JSON.parse(calls) as { tool_call_id: string; cancellation_status: string; partial_result: { marker: string; value: { counted: number } } }[];
  expect(cancelled).toHaveLength(1);
  expect(cancelled[0]).toMatchObject({ tool_call_id: "count-1", cancellation_status: "CANCELLED", partial_result: { marker: "PARTIAL_RESULT" } });
  expect(cancelled[0].partial_result.value.counted).toBeGreaterThan(0);
  expect(cancelled[0].partial_result.value.counted).toBeLessThan(1000);
}, 420_000);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
