import { readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { importSpecifiers, relative, resolveLocal, ROOT } from "../../support/import-graph";

/**
 * The SDK must run outside the app — in an agent runtime, a worker process, a browser: it may import no
 * Prisma, no database driver, no React, no Next.js, no Node built-in, and nothing of the server's domain
 * (lib/db, lib/ledger except the plain state constants, the route wrapper and its error mapping). This walks
 * the import graph of lib/sdk — relative and "@/" imports, transitively, type-only imports included — and
 * fails on any such import anywhere in it.
 */

const SDK = path.join(ROOT, "lib/sdk");

const FORBIDDEN_PACKAGES = [/^prisma$/, /^@prisma\//, /^better-sqlite3$/, /^pg$/, /^react$/, /^react-dom$/, /^next$/, /^next\//];
/** The SDK's only third-party dependencies (what its package.json would list). */
const ALLOWED_PACKAGES = new Set(["zod", "eventsource-parser"]);
const FORBIDDEN_FILES: { test: (rel: string) => boolean; why: string }[] = [
  { test: (rel) => rel.startsWith("lib/db/"), why: "the database layer (Prisma)" },
  {
    test: (rel) => rel.startsWith("lib/ledger/") && !["lib/ledger/states.ts", "lib/ledger/progress.ts", "lib/ledger/events.ts"].includes(rel),
    why: "the ledger's write and query code (only lib/ledger/states.ts, progress.ts and events.ts — the event catalogue — plain constants, types and schemas, are allowed)",
  },
  { test: (rel) => rel === "lib/api/route.ts", why: "the server's route wrapper" },
  { test: (rel) => rel === "lib/api/http-errors.ts", why: "the server's error mapping" },
];

export interface Violation {
  file: string;
  specifier: string;
  why: string;
}

export interface Graph {
  files: string[];
  packages: Set<string>;
  violations: Violation[];
}

const packageName = (specifier: string) => (specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]);
const isBuiltin = (specifier: string) => specifier.startsWith("node:") || builtinModules.includes(packageName(specifier));

/** Walks the import graph from `entries` (absolute paths). */
export function walk(entries: string[]): Graph {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const violations: Violation[] = [];
  const queue = [...entries];
  while (queue.length) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const rel = relative(file);
    const forbiddenFile = FORBIDDEN_FILES.find((f) => f.test(rel));
    if (forbiddenFile) violations.push({ file: rel, specifier: rel, why: `reachable from the SDK: ${forbiddenFile.why}` });
    const { specifiers, nonLiteral } = importSpecifiers(readFileSync(file, "utf8"));
    if (nonLiteral) violations.push({ file: rel, specifier: "import(<expression>)", why: "an import whose target cannot be checked" });
    for (const specifier of specifiers) {
      if (specifier.startsWith(".") || specifier.startsWith("@/")) {
        const target = resolveLocal(file, specifier);
        if (!target) violations.push({ file: rel, specifier, why: "does not resolve to a file" });
        else queue.push(target);
        continue;
      }
      if (isBuiltin(specifier)) {
        violations.push({ file: rel, specifier, why: "a Node built-in (the SDK must run in Node and in browsers: fetch, AbortController, streams only)" });
        continue;
      }
      const pkg = packageName(specifier);
      packages.add(pkg);
      if (FORBIDDEN_PACKAGES.some((p) => p.test(specifier))) violations.push({ file: rel, specifier, why: "server-only or UI package" });
    }
  }
  return { files: [...seen].map(relative).sort(), packages, violations };
}

/**
 * The SDK's own source files: everything in lib/sdk except tests (its fixtures are in test/support/sdk/) and the bin
 * (lib/sdk/bin/: a Node program that bundles the MCP SDK's transports; checked on its own below).
 */
export function sdkEntries(dir = SDK): string[] {
  const out: string[] = [];
  const visit = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) {
        if (name !== "testing" && name !== "bin") visit(full);
      } else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name)) out.push(full);
    }
  };
  visit(dir);
  return out.sort();
}

describe("the SDK's import graph", () => {
  it("reaches no Prisma, database driver, React, Next.js, Node built-in or server-only domain code", () => {
    const graph = walk(sdkEntries());
    expect(graph.files).toContain("lib/sdk/index.ts");
    expect(graph.files).toContain("lib/sdk/worker.ts");
    expect(graph.files).toContain("lib/api/contract.ts"); // calls are built from the contract…
    expect(graph.files).toContain("lib/api/schemas.ts"); // …and parsed with the shared schemas
    expect(graph.violations).toEqual([]);
  });

  it("depends on zod and eventsource-parser only (it can be published as its own package)", () => {
    const { packages } = walk(sdkEntries());
    expect([...packages].filter((p) => !ALLOWED_PACKAGES.has(p))).toEqual([]);
  });

  it("the bin stopline-mcp-stdio reaches nothing server-only: only the MCP SDK's transports (bundled into it by build:sdk)", () => {
    const graph = walk(sdkEntries(path.join(SDK, "bin")));
    expect(graph.files).toContain("lib/sdk/bin/relay.ts");
    expect(graph.violations).toEqual([]);
    expect([...graph.packages].sort()).toEqual(["@modelcontextprotocol/client", "@modelcontextprotocol/server"]);
  });

  it("the check itself catches violations: the route wrapper reaches Prisma, the database and next-free server code", () => {
    const graph = walk([path.join(ROOT, "lib/api/route.ts")]);
    const whys = graph.violations.map((v) => `${v.file} → ${v.specifier}`);
    expect(whys).toEqual(expect.arrayContaining([expect.stringMatching(/^lib\/api\/route\.ts → lib\/api\/route\.ts$/), expect.stringMatching(/lib\/db\//)]));
    expect(graph.violations.some((v) => v.why.includes("Node built-in"))).toBe(true); // lib/auth/tokens.ts imports node:crypto
  });

  it("reads every form of import, ignores commented-out ones, and flags imports it cannot check", () => {
    const source = `
      import a from "./a";
      import type { B } from "@/lib/b";
      import {
        c,
        type D,
      } from "c-pkg/sub";
      import "side-effect";
      export * from "./star";
      export { e } from '@scope/e/deep';
      const f = await import("./lazy");
      const g = require("g");
      // import nope from "commented";
      /* import nope2 from "commented-block"; */
      const url = "http://example.com/import x from 'not-an-import'";
      const h = await import(someVariable);
    `;
    const { specifiers, nonLiteral } = importSpecifiers(source);
    expect(specifiers.sort()).toEqual(["./a", "./lazy", "./star", "@/lib/b", "@scope/e/deep", "c-pkg/sub", "g", "side-effect"].sort());
    expect(nonLiteral).toBe(1);
  });
});
