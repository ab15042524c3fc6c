/**
 * npm run build:sdk [outDir] — packages lib/sdk as the npm package @stopline/sdk in output/sdk/ (`npm pack` ready):
 * ESM bundles for its two entry points (`.` → index.mjs, `./ai` → ai.mjs; shared code in chunk-*.mjs; the shared
 * contract, schemas and state constants inlined; zod and eventsource-parser as dependencies), their type
 * declarations, and the package's own files from lib/sdk: package/package.json (name, version, exports),
 * README.md, CHANGELOG.md. lib/sdk/package.test.ts builds it, packs it, installs the tarball into an empty
 * project and runs the README's quick start against `npm start`.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";

const ROOT = path.resolve(import.meta.dirname, "..");
const SDK = path.join(ROOT, "lib", "sdk");
const OUT = path.resolve(process.argv[2] ?? path.join(ROOT, "output", "sdk"));
const pkg = JSON.parse(readFileSync(path.join(SDK, "package", "package.json"), "utf8"));
const app = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"));

// The package's dependency ranges must admit the versions the app is built and tested with.
for (const dep of Object.keys(pkg.dependencies)) {
  if (!app.dependencies[dep]) throw new Error(`@stopline/sdk depends on ${dep}, which the app does not`);
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
await build({
  entryPoints: { index: path.join(SDK, "index.ts"), ai: path.join(SDK, "ai.ts") },
  outdir: OUT,
  outExtension: { ".js": ".mjs" },
  chunkNames: "chunk-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  external: ["zod", "eventsource-parser", "eventsource-parser/*"],
  logLevel: "warning",
});
// Declarations for the whole import graph of the SDK, then one .d.ts per entry point that points at them.
execFileSync(path.join(ROOT, "node_modules", ".bin", "tsc"), [
  "--ignoreConfig", "--declaration", "--emitDeclarationOnly", "--noEmit", "false", "--skipLibCheck", "--allowImportingTsExtensions",
  "--module", "esnext", "--moduleResolution", "bundler", "--target", "es2022", "--strict", "--lib", "es2024,dom,dom.iterable",
  "--rootDir", ROOT, "--outDir", path.join(OUT, "types"), path.join(SDK, "index.ts"), path.join(SDK, "ai.ts"),
], { stdio: "inherit" });
writeFileSync(path.join(OUT, "index.d.ts"), `export * from "./types/lib/sdk/index";\n`);
writeFileSync(path.join(OUT, "ai.d.ts"), `export * from "./types/lib/sdk/ai";\n`);
copyFileSync(path.join(SDK, "README.md"), path.join(OUT, "README.md"));
copyFileSync(path.join(SDK, "CHANGELOG.md"), path.join(OUT, "CHANGELOG.md"));
writeFileSync(path.join(OUT, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
console.log(`built ${pkg.name} ${pkg.version} in ${path.relative(process.cwd(), OUT) || OUT}`);
