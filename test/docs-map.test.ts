import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./support/import-graph";

/** The maps stay true (issue 21 item 8): every folder is named in README's Layout and ARCHITECTURE's table. */
const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
const layout = readme.slice(readme.indexOf("## Layout"), readme.indexOf("## ", readme.indexOf("## Layout") + 3));
const architecture = readFileSync(path.join(ROOT, "docs/ARCHITECTURE.md"), "utf8");
const folders = (dir: string) =>
  readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith(".") && !["node_modules", "output", "data", "tools"].includes(e.name))
    .map((e) => e.name);
const TOP = folders(".").filter((name) => !["test-results", "playwright-report"].includes(name));

describe("the maps of the tree", () => {
  it.each(folders("lib"))("lib/%s/ is named in README's Layout and in ARCHITECTURE's folder table", (name) => {
    expect(layout).toMatch(new RegExp(`(^|\\s)${name}/`, "m"));
    expect(architecture).toContain(`\`lib/${name}/\``);
  });

  it.each(TOP)("%s/ is named in README's Layout", (name) => {
    expect(layout).toMatch(new RegExp(`^${name}/`, "m"));
  });

  it("every repository path the docs cite exists", () => {
    const docs = ["README.md", "docs/ARCHITECTURE.md", "docs/SECURITY.md"].map((f) => readFileSync(path.join(ROOT, f), "utf8")).join("\n");
    const cited = [...docs.matchAll(/`((?:lib|app|components|scripts|bench|e2e|test|prisma|docs|examples)\/[\w./[\]-]+\.(?:ts|tsx|md|prisma|sql|json))`/g)].map(
      (m) => m[1],
    );
    expect(cited.length).toBeGreaterThan(20);
    expect([...new Set(cited)].filter((p) => !existsSync(path.join(ROOT, p)))).toEqual([]);
  });
});
