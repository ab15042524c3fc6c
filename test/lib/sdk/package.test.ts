import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, describe, expect, it } from "vitest";

/**
 * @stopline/sdk as Node projects use it, before it is published — exactly the README's steps: `npm run build:sdk`,
 * `npm pack ./output/sdk`, `npm install <tarball>` in a project of one's own. Then:
 * - the ecosystem's package checks: publint and @arethetypeswrong/cli (CommonJS, node16/nodenext from CJS and ESM,
 *   bundler, node10) on the tarball;
 * - three consumers of the installed package, each typechecked under `strict` and run: CommonJS (`require`, and
 *   TypeScript `nodenext` in a package without "type"), ESM (`"type": "module"`, `nodenext`), and a bundler project
 *   (`"moduleResolution": "bundler"`, bundled with esbuild);
 * - the README's quick start — copied from the README, unchanged — typechecked and run as CommonJS and as ESM
 *   against a real `npm start` (its own port, database and process group, ended afterwards);
 * - `stopline-mcp-stdio`, the package's bin, driven by a real MCP client against that server's /api/mcp.
 */

const ROOT = path.resolve(import.meta.dirname, "..", "..", "..");
const BIN = path.join(ROOT, "node_modules", ".bin");
const run = promisify(execFile);
// The build lives inside the repository (output/ is not committed); the install happens in an empty temp project.
const OUT = path.join(ROOT, "output", "sdk-package-test");
const PROJECT = mkdtempSync(path.join(tmpdir(), "stopline-sdk-install-"));
const TOKEN = "sdk-package-test-admin-token-0123456789";
const { NODE_CHANNEL_FD: _ipc, ...env } = process.env;
let server: ChildProcess | null = null;
let tarball = "";

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

/** Runs a command; resolves with its output whatever its exit code (the assertions say what was expected). */
async function sh(command: string, args: string[], cwd: string, extraEnv: Record<string, string> = {}, timeout = 180_000) {
  return run(command, args, { cwd, env: { ...env, ...extraEnv }, timeout, maxBuffer: 20 * 1024 * 1024 }).then(
    (r) => ({ code: 0, out: `${r.stdout}${r.stderr}`, stdout: r.stdout }),
    (e: { code?: number; stdout?: string; stderr?: string; message: string }) => ({
      code: typeof e.code === "number" ? e.code : 1,
      out: `${e.stdout ?? ""}${e.stderr ?? ""}${e.stdout || e.stderr ? "" : e.message}`,
      stdout: e.stdout ?? "",
    }),
  );
}

function project(name: string, pkg: Record<string, unknown>, compilerOptions: Record<string, unknown>, files: Record<string, string>) {
  const dir = path.join(PROJECT, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: `consumer-${name}`, private: true, ...pkg }, null, 2));
  writeFileSync(
    path.join(dir, "tsconfig.json"),
    JSON.stringify(
      {
        compilerOptions: { strict: true, noEmit: true, skipLibCheck: false, target: "es2022", types: ["node"], ...compilerOptions },
        include: ["*.ts", "*.mts", "*.cts"],
      },
      null,
      2,
    ),
  );
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, file), text);
  return dir;
}

/** What every consumer does with the package: the client, the worker, the AI SDK wrapper and their types. */
const USAGE = `
import { StoplineClient, defineTool, runWorker, StoplineError, type CancellationSummary, type ToolDefinition } from "@stopline/sdk";
import { createStopline, stoplineContext, type StopContract } from "@stopline/sdk/ai";

const client = new StoplineClient({ baseUrl: "http://127.0.0.1:9", token: "t", retry: false });
const tool: ToolDefinition<{ n: number }, number> = defineTool({
  name: "consumer.double", kind: "local_worker", risk: "low", commitsEffect: false, mechanism: "abort_signal",
  async run({ n }: { n: number }, ctx) { if (ctx.signal.aborted) throw ctx.signal.reason; return n * 2; },
});
const contract: StopContract = { mechanism: "provider_cancel", commitsEffect: true, async cancel() {}, async inspect() { return { status: "not_committed" }; } };
const stopline = createStopline({ client });
const status: CancellationSummary["status"] | undefined = undefined;
// @ts-expect-error — a kind the contract does not know is a type error
defineTool({ name: "x", kind: "no_such_kind", risk: "low", commitsEffect: false, mechanism: "abort_signal", async run() { return 1; } });
export const probe = [typeof StoplineClient, typeof runWorker, typeof createStopline, typeof stoplineContext, typeof stopline.wrapTools, typeof StoplineError, tool.name, contract.mechanism, String(status), typeof client.waitForCancellation].join(" ");
`;
const EXPECTED_PROBE = "function function function function function function consumer.double provider_cancel undefined function";

describe("@stopline/sdk, packed and installed as Node projects use it", () => {
  it("build:sdk makes a package of its own: ESM and CommonJS for `.` and `./ai` with their own declarations, the stdio bin; only zod and eventsource-parser as dependencies", async () => {
    const built = await sh(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts", "build-sdk.ts"), OUT], ROOT);
    expect(built.code, built.out).toBe(0);
    const files = readdirSync(OUT);
    expect(files).toEqual(
      expect.arrayContaining([
        "index.mjs",
        "index.cjs",
        "index.d.mts",
        "index.d.cts",
        "ai.mjs",
        "ai.cjs",
        "ai.d.mts",
        "ai.d.cts",
        "README.md",
        "CHANGELOG.md",
        "package.json",
      ]),
    );
    expect(existsSync(path.join(OUT, "bin", "stopline-mcp-stdio.mjs"))).toBe(true);
    for (const file of files.filter((f) => /\.(mjs|cjs)$/.test(f))) {
      const code = readFileSync(path.join(OUT, file), "utf8");
      expect(code, file).not.toMatch(/prisma|better-sqlite3|from "pg"|require\("pg"\)|from "node:|require\("node:|from "ai"|require\("ai"\)/);
      const specifiers = [...code.matchAll(/^(?:import|export)\b[^;\n]*?from\s*"([^"]+)"|^import\s*"([^"]+)"|\brequire\("([^"]+)"\)/gm)].map(
        (m) => m[1] ?? m[2] ?? m[3],
      );
      expect(specifiers.length, `${file} imports something`).toBeGreaterThan(0);
      const bare = specifiers.filter((s) => !s.startsWith("."));
      expect(
        [...new Set(bare)].filter((b) => !/^(zod|eventsource-parser)(\/|$)/.test(b)),
        file,
      ).toEqual([]);
    }
    // declarations are bundled: no relative import without an extension (TS2834 under nodenext)
    for (const file of files.filter((f) => /\.d\.[cm]ts$/.test(f))) {
      const text = readFileSync(path.join(OUT, file), "utf8");
      for (const m of text.matchAll(/from\s+"(\.[^"]+)"/g)) expect(m[1], `${file} imports ${m[1]}`).toMatch(/\.(c|m)?js$/);
    }
    const pkg = JSON.parse(readFileSync(path.join(OUT, "package.json"), "utf8"));
    expect(pkg).toMatchObject({
      name: "@stopline/sdk",
      type: "module",
      bin: { "stopline-mcp-stdio": "bin/stopline-mcp-stdio.mjs" },
      exports: {
        ".": { import: { types: "./index.d.mts", default: "./index.mjs" }, require: { types: "./index.d.cts", default: "./index.cjs" } },
        "./ai": { import: { types: "./ai.d.mts", default: "./ai.mjs" }, require: { types: "./ai.d.cts", default: "./ai.cjs" } },
      },
      peerDependenciesMeta: { ai: { optional: true } },
    });
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(Object.keys(pkg.dependencies).sort()).toEqual(["eventsource-parser", "zod"]);
    expect(readFileSync(path.join(OUT, "CHANGELOG.md"), "utf8")).toContain(`## ${pkg.version}`);

    const packed = await sh("npm", ["pack", OUT, "--pack-destination", PROJECT], PROJECT);
    expect(packed.code, packed.out).toBe(0);
    tarball = path.join(PROJECT, packed.stdout.trim().split("\n").pop()!);
    expect(existsSync(tarball)).toBe(true);
  }, 180_000);

  it("publint and @arethetypeswrong/cli find no problem in the tarball (node10, node16 from CJS and from ESM, bundler)", async () => {
    const lint = await sh(path.join(BIN, "publint"), ["run", OUT, "--strict"], ROOT);
    expect(lint.code, lint.out).toBe(0);
    expect(lint.out).toMatch(/All good/);
    const attw = await sh(path.join(BIN, "attw"), [tarball, "--format", "json"], ROOT);
    expect(attw.code, attw.out.slice(0, 3_000)).toBe(0);
    const report = JSON.parse(attw.stdout) as {
      analysis: { problems: unknown[]; entrypoints: Record<string, { resolutions: Record<string, { resolution?: { fileName: string } }> }> };
    };
    expect(report.analysis.problems).toEqual([]);
    const resolved = report.analysis.entrypoints["."].resolutions;
    expect(resolved["node16-cjs"].resolution?.fileName).toMatch(/index\.d\.cts$/);
    expect(resolved["node16-esm"].resolution?.fileName).toMatch(/index\.d\.mts$/);
    expect(resolved.bundler.resolution?.fileName).toMatch(/index\.d\.mts$/);
    expect(report.analysis.entrypoints["./ai"].resolutions["node16-cjs"].resolution?.fileName).toMatch(/ai\.d\.cts$/);
  }, 120_000);

  it("installs from the tarball, and CommonJS, ESM (nodenext) and bundler projects typecheck under strict and run", async () => {
    expect(tarball, "the packed tarball (previous test)").toBeTruthy();
    writeFileSync(path.join(PROJECT, "package.json"), JSON.stringify({ name: "sdk-consumers", private: true }, null, 2));
    const installed = await sh("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball, "@types/node@20"], PROJECT);
    expect(installed.code, installed.out).toBe(0);
    expect(existsSync(path.join(PROJECT, "node_modules", "@stopline", "sdk", "index.cjs"))).toBe(true);

    const quickstart = readmeQuickstart();
    const cjs = project(
      "cjs",
      {},
      { module: "nodenext", moduleResolution: "nodenext" },
      {
        "usage.ts": USAGE,
        "quickstart.ts": quickstart,
        "main.ts": 'import { probe } from "./usage";\nconsole.log(probe);\n',
        "require.cjs":
          'const sdk = require("@stopline/sdk"); const ai = require("@stopline/sdk/ai"); console.log(typeof sdk.StoplineClient, typeof sdk.runWorker, typeof ai.createStopline);',
      },
    );
    const esm = project(
      "esm",
      { type: "module" },
      { module: "nodenext", moduleResolution: "nodenext" },
      {
        "usage.ts": USAGE,
        "quickstart.ts": quickstart,
        "main.ts": 'import { probe } from "./usage.js";\nconsole.log(probe);\n',
        "import.mjs":
          'const sdk = await import("@stopline/sdk"); const ai = await import("@stopline/sdk/ai"); console.log(typeof sdk.StoplineClient, typeof sdk.runWorker, typeof ai.createStopline);',
      },
    );
    const bundler = project(
      "bundler",
      { type: "module" },
      { module: "esnext", moduleResolution: "bundler" },
      { "usage.ts": USAGE, "main.ts": 'import { probe } from "./usage";\nconsole.log(probe);\n' },
    );

    for (const dir of [cjs, esm, bundler]) {
      const checked = await sh(path.join(BIN, "tsc"), ["-p", dir], dir);
      expect(checked.code, `${path.basename(dir)}: ${checked.out}`).toBe(0);
    }
    // the same files fail to typecheck when the declarations are broken: the check can fail
    const broken = project(
      "broken",
      { type: "module" },
      { module: "nodenext", moduleResolution: "nodenext" },
      { "usage.ts": 'import { NoSuchExport } from "@stopline/sdk";\nexport const x = NoSuchExport;\n' },
    );
    expect((await sh(path.join(BIN, "tsc"), ["-p", broken], broken)).out).toMatch(/has no exported member 'NoSuchExport'/);

    const required = await sh(process.execPath, ["require.cjs"], cjs);
    expect(required.stdout.trim(), required.out).toBe("function function function");
    const imported = await sh(process.execPath, ["import.mjs"], esm);
    expect(imported.stdout.trim(), imported.out).toBe("function function function");
    for (const dir of [cjs, esm]) {
      const usage = await sh(path.join(BIN, "tsx"), ["main.ts"], dir);
      expect(usage.stdout.trim(), `${path.basename(dir)}: ${usage.out}`).toBe(EXPECTED_PROBE);
    }
    const bundled = await sh(
      path.join(BIN, "esbuild"),
      ["main.ts", "--bundle", "--platform=node", "--format=esm", "--outfile=out.mjs", "--log-level=warning"],
      bundler,
    );
    expect(bundled.code, bundled.out).toBe(0);
    expect(readFileSync(path.join(bundler, "out.mjs"), "utf8")).toContain("waitForCancellation"); // the SDK itself is in the bundle
    const ran = await sh(process.execPath, ["out.mjs"], bundler);
    expect(ran.stdout.trim(), ran.out).toBe(EXPECTED_PROBE);
  }, 240_000);

  it("the README's quick start runs against npm start as CommonJS and as ESM: Stop → CANCELLED with the partial count; the bin stopline-mcp-stdio reaches /api/mcp", async () => {
    const cjs = path.join(PROJECT, "cjs");
    const esm = path.join(PROJECT, "esm");
    expect(existsSync(path.join(cjs, "quickstart.ts")), "the consumer projects (previous test)").toBe(true);
    const port = await freePort();
    const db = path.join(PROJECT, "stopline.db");
    const mcpConfig = path.join(PROJECT, "stopline.mcp.json");
    writeFileSync(
      mcpConfig,
      JSON.stringify({
        servers: { demo: { stdio: { command: process.execPath, args: ["--import", "tsx", "lib/tools/adapters/demo-mcp-server.ts"], cwd: ROOT } } },
      }),
    );
    const { DATABASE_URL: _db, ...serverEnv } = env;
    server = spawn("npm", ["start"], {
      cwd: ROOT,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...serverEnv,
        PORT: String(port),
        DATABASE_URL: `file:${db}`,
        STOPLINE_BOOTSTRAP_TOKEN: TOKEN,
        STOPLINE_DEMO: "0",
        STOPLINE_DEMO_ACCOUNTS: "0",
        STOPLINE_MCP_CONFIG: mcpConfig,
      },
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
    const url = `http://127.0.0.1:${port}`;

    for (const dir of [cjs, esm]) {
      const out = await sh(path.join(BIN, "tsx"), ["quickstart.ts"], dir, { STOPLINE_URL: url, STOPLINE_TOKEN: TOKEN }, 60_000);
      const [line, calls] = out.stdout.trim().split("\n");
      expect(line, `${path.basename(dir)}: ${out.out}`).toMatch(/^CANCELLED — Stopped new work\./);
      const cancelled = JSON.parse(calls) as {
        tool_call_id: string;
        cancellation_status: string;
        partial_result: { marker: string; value: { counted: number } };
      }[];
      expect(cancelled).toHaveLength(1);
      expect(cancelled[0]).toMatchObject({ tool_call_id: "count-1", cancellation_status: "CANCELLED", partial_result: { marker: "PARTIAL_RESULT" } });
      expect(cancelled[0].partial_result.value.counted).toBeGreaterThan(0);
      expect(cancelled[0].partial_result.value.counted).toBeLessThan(1000);
    }

    // MCP Inspector's way in: a client that launches a command — here the installed package's bin, as `npx` runs it.
    const bin = path.join(PROJECT, "node_modules", ".bin", "stopline-mcp-stdio");
    expect(existsSync(bin)).toBe(true);
    const client = new Client({ name: "inspector-like", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({ command: bin, cwd: PROJECT, stderr: "ignore", env: { PATH: env.PATH ?? "", STOPLINE_URL: url, STOPLINE_TOKEN: TOKEN } }),
    );
    try {
      const listed = await waitForTools(client);
      expect(listed).toContain("count_slowly");
      const result = await client.callTool({ name: "count_slowly", arguments: { steps: 2, delayMs: 1 } });
      expect(result.structuredContent).toEqual({ counted: 2 });
    } finally {
      await client.close();
    }
    // without a token the bin says what to do and exits 2
    const refused = await sh(bin, [], PROJECT, { STOPLINE_TOKEN: "" }, 20_000);
    expect(refused.code).toBe(2);
    expect(refused.out).toMatch(/STOPLINE_TOKEN is not set/);
  }, 420_000);
});

function readmeQuickstart(): string {
  const readme = readFileSync(path.join(ROOT, "lib", "sdk", "README.md"), "utf8");
  const block = /<!-- quickstart -->\s*```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(block, "the README's quick start block").toBeTruthy();
  return block!;
}

/** The gateway connects its downstream servers at start-up: its tool list fills a moment after the app answers. */
async function waitForTools(client: Client): Promise<string[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const names = (await client.listTools()).tools.map((t) => t.name);
    if (names.length || Date.now() > deadline) return names;
    await new Promise((r) => setTimeout(r, 250));
  }
}

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
