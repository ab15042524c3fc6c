import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..", "..", "..");
const read = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), "utf8"));

/**
 * npm 11 warns at every install about dependencies whose install scripts package.json's `allowScripts` does not
 * cover, and a coming npm blocks them: better-sqlite3 would not be built, Prisma's engines not fetched. Every
 * package of the lock file with an install script must be declared (true to run it, false to refuse it).
 */
describe("package.json allowScripts", () => {
  it("covers every dependency with an install script in package-lock.json (npm install prints no install-scripts warning)", () => {
    const allow: Record<string, boolean> = read("package.json").allowScripts ?? {};
    const declared = new Set(Object.keys(allow).map((key) => key.replace(/(.)@.*$/, "$1")));
    const lock = read("package-lock.json") as { packages: Record<string, { hasInstallScript?: boolean; os?: string[]; cpu?: string[] }> };
    const withScripts = Object.entries(lock.packages)
      .filter(([where, p]) => where !== "" && p.hasInstallScript)
      .filter(([, p]) => (!p.os || p.os.includes(process.platform)) && (!p.cpu || p.cpu.includes(process.arch)))
      .map(([where]) => where.slice(where.lastIndexOf("node_modules/") + "node_modules/".length));
    expect(withScripts.length).toBeGreaterThan(0);
    expect([...new Set(withScripts)].filter((name) => !declared.has(name))).toEqual([]);
  });
});
