import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { importCycles, importGraph, sourceFiles } from "./support/import-graph";

/**
 * The tree's architecture, held (issue 21 item 9): no import cycles anywhere; lib/ (the domain) never reaches up into
 * app/ (pages and route handlers) or components/ (the UI); product code never imports test support. Type-only
 * imports count: a cycle of types is still two files that cannot be read one without the other.
 */

const TREE = ["lib", "app", "components", "scripts", "bench", "e2e", "examples", "test", "proxy.ts", "instrumentation.ts"];
const graph = importGraph(sourceFiles(TREE));

/** Tests, their fixtures and the browser suite: the files product code may not import. */
const isTestCode = (file: string) => /\.test\.tsx?$/.test(file) || file.startsWith("test/") || file.startsWith("e2e/");
const isProduct = (file: string) => /^(lib|app|components)\//.test(file) && !isTestCode(file);
const edges = [...graph].flatMap(([from, targets]) => targets.map((to) => ({ from, to })));

describe("the tree's architecture", () => {
  it("reads the whole tree", () => {
    expect(graph.size).toBeGreaterThan(500);
    expect(graph.has("lib/cancellation/execute-cancellation.ts")).toBe(true);
  });

  it("has no import cycle", () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it("lib/ never imports app/ or components/ (tests of route handlers aside)", () => {
    const upward = edges.filter(({ from, to }) => isProduct(from) && from.startsWith("lib/") && /^(app|components)\//.test(to));
    expect(upward).toEqual([]);
  });

  it("product code never imports test support", () => {
    expect(edges.filter(({ from, to }) => isProduct(from) && isTestCode(to))).toEqual([]);
  });

  it("lib/ holds no test support (fixtures and fakes live in test/support/)", () => {
    expect([...graph.keys()].filter((f) => f.startsWith("lib/") && /\/testing\//.test(f))).toEqual([]);
  });

  it("the database engine is chosen in one place (onEngine, lib/db/client.ts): no product code outside lib/db/ reads a database's pg or sqlite handle", () => {
    const choosing = /\b(?:database|#database|db)\.(?:pg|sqlite)\b|\bpgOf\(/;
    const offenders = [...graph.keys()]
      .filter((f) => isProduct(f) && !f.startsWith("lib/db/"))
      .flatMap((f) =>
        readFileSync(f, "utf8")
          .split("\n")
          .flatMap((line, i) => (choosing.test(line) && !/^\s*(\/\/|\*)/.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(offenders).toEqual([]);
  });
});

describe("importCycles", () => {
  it.each<[string, Record<string, string[]>, string[][]]>([
    ["a chain", { a: ["b"], b: ["c"], c: [] }, []],
    ["two files importing each other", { a: ["b"], b: ["a"] }, [["a", "b"]]],
    ["a ring of three beside a clean file", { a: ["b"], b: ["c"], c: ["a"], d: ["a"] }, [["a", "b", "c"]]],
    ["a file importing itself", { a: ["a"] }, [["a"]]],
  ])("%s", (_, edgesOf, cycles) => {
    expect(importCycles(new Map(Object.entries(edgesOf)))).toEqual(cycles);
  });
});
