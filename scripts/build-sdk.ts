/**
 * npm run build:sdk [outDir] — packages lib/sdk as the npm package @stopline/sdk in output/sdk/ (`npm pack` ready),
 * with tsdown (rolldown + rolldown-plugin-dts):
 *
 * - `.` and `./ai`, each as ESM (`.mjs`) and CommonJS (`.cjs`), with bundled declarations for each (`.d.mts`,
 *   `.d.cts`): the shared contract, schemas and state constants are inlined, so the types need no relative import
 *   that a `nodenext` consumer could not resolve. zod and eventsource-parser stay dependencies.
 * - `bin/stopline-mcp-stdio.mjs` — the stdio relay to the MCP gateway (`npx stopline-mcp-stdio`), with the MCP
 *   SDK's two transports bundled in, so that the package's dependencies stay zod and eventsource-parser.
 * - the package's own files from lib/sdk: package/package.json (name, version, exports, bin), README.md,
 *   CHANGELOG.md.
 *
 * test/lib/sdk/package.test.ts builds it, checks it with publint and @arethetypeswrong/cli, installs the tarball into
 * CommonJS, ESM (nodenext) and bundler projects, typechecks and runs each, and runs the README's quick start.
 */
import { copyFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "tsdown";

const ROOT = path.resolve(import.meta.dirname, "..");
const SDK = path.join(ROOT, "lib", "sdk");
const OUT = path.resolve(process.argv[2] ?? path.join(ROOT, "output", "sdk"));
const pkg = JSON.parse(readFileSync(path.join(SDK, "package", "package.json"), "utf8"));
const app = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"));

// The package's dependency ranges must admit the versions the app is built and tested with.
for (const dep of Object.keys(pkg.dependencies)) {
  if (!app.dependencies[dep]) throw new Error(`@stopline/sdk depends on ${dep}, which the app does not`);
}

// Declarations come from the project's own TypeScript (7, the native compiler): rolldown-plugin-dts runs it as tsgo.
const require = createRequire(import.meta.url);
const { default: getExePath } = (await import(
  pathToFileURL(path.join(path.dirname(require.resolve("typescript/package.json")), "lib", "getExePath.js")).href
)) as { default: () => string };
const tsgo = { path: getExePath() };

rmSync(OUT, { recursive: true, force: true });
const common = {
  cwd: ROOT,
  outDir: OUT,
  config: false,
  logLevel: "warn",
  target: "es2022",
  fixedExtension: true,
  hash: true,
  report: false,
  clean: false,
} as const;
await build({
  ...common,
  entry: { index: path.join(SDK, "index.ts"), ai: path.join(SDK, "ai.ts") },
  format: ["esm", "cjs"],
  platform: "neutral",
  tsconfig: path.join(ROOT, "tsconfig.sdk.json"),
  dts: { tsgo },
  deps: { neverBundle: ["zod", "eventsource-parser", /^eventsource-parser\//], onlyBundle: false },
});
await build({
  ...common,
  entry: { "bin/stopline-mcp-stdio": path.join(SDK, "bin", "mcp-stdio.ts") },
  format: ["esm"],
  platform: "node",
  dts: false,
  banner: { js: "#!/usr/bin/env node" },
  minify: true,
  deps: {
    neverBundle: ["zod", "eventsource-parser", /^eventsource-parser\//],
    alwaysBundle: (id) => !/^(zod|eventsource-parser)(\/|$)/.test(id),
    onlyBundle: false,
  },
});
copyFileSync(path.join(SDK, "README.md"), path.join(OUT, "README.md"));
copyFileSync(path.join(SDK, "CHANGELOG.md"), path.join(OUT, "CHANGELOG.md"));
writeFileSync(path.join(OUT, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
console.log(`built ${pkg.name} ${pkg.version} in ${path.relative(process.cwd(), OUT) || OUT}`);
