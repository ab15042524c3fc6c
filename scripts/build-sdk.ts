/**
 * npm run build:sdk — packages lib/sdk as its own npm package in output/sdk/ (`npm pack` ready):
 * one ESM bundle (the shared contract, schemas and state constants inlined; zod and eventsource-parser as
 * dependencies), its type declarations, and a package.json. lib/sdk/package.int.test.ts builds it and
 * uses the packed client from a separate Node process.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";

const ROOT = path.resolve(import.meta.dirname, "..");
const OUT = path.resolve(process.argv[2] ?? path.join(ROOT, "output", "sdk"));
const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"));

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
await build({
  entryPoints: [path.join(ROOT, "lib", "sdk", "index.ts")],
  outfile: path.join(OUT, "index.mjs"),
  bundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  external: ["zod", "eventsource-parser", "eventsource-parser/*"],
  logLevel: "warning",
});
// Declarations for the whole import graph of the SDK, then an index.d.ts that points at them.
execFileSync(path.join(ROOT, "node_modules", ".bin", "tsc"), [
  "--ignoreConfig", "--declaration", "--emitDeclarationOnly", "--noEmit", "false", "--skipLibCheck", "--allowImportingTsExtensions",
  "--module", "esnext", "--moduleResolution", "bundler", "--target", "es2022", "--strict", "--lib", "es2024,dom,dom.iterable",
  "--rootDir", ROOT, "--outDir", path.join(OUT, "types"), path.join(ROOT, "lib", "sdk", "index.ts"),
], { stdio: "inherit" });
writeFileSync(path.join(OUT, "index.d.ts"), `export * from "./types/lib/sdk/index";\n`);
writeFileSync(path.join(OUT, "package.json"), JSON.stringify({
  name: "@stopline/sdk",
  version: pkg.version,
  description: "Stopline's TypeScript client and worker runtime for agent runtimes outside the app",
  type: "module",
  exports: { ".": { types: "./index.d.ts", import: "./index.mjs" } },
  types: "./index.d.ts",
  dependencies: { zod: pkg.dependencies.zod, "eventsource-parser": pkg.dependencies["eventsource-parser"] },
  engines: { node: ">=20" },
}, null, 2) + "\n");
console.log(`built @stopline/sdk ${pkg.version} in ${path.relative(process.cwd(), OUT) || OUT}`);
