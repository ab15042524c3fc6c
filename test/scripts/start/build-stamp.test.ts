import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildNeeded, fingerprint, writeStamp } from "../../../scripts/start/build-stamp";

const INPUTS = ["app", "lib", "package.json"];
let root: string;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "stopline-stamp-"));
  mkdirSync(path.join(root, "app"));
  mkdirSync(path.join(root, "lib", "ledger"), { recursive: true });
  writeFileSync(path.join(root, "app", "page.tsx"), "export default 1");
  writeFileSync(path.join(root, "lib", "ledger", "states.ts"), "export {}");
  writeFileSync(path.join(root, "package.json"), "{}");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function built() {
  mkdirSync(path.join(root, ".next"), { recursive: true });
  writeFileSync(path.join(root, ".next", "BUILD_ID"), "x");
  writeStamp(root, INPUTS);
}

describe("buildNeeded", () => {
  it("wants a build when there is none", () => {
    expect(buildNeeded(root, INPUTS)).toBe("no build yet");
  });

  it("wants a build when a build exists without a stamp", () => {
    mkdirSync(path.join(root, ".next"));
    writeFileSync(path.join(root, ".next", "BUILD_ID"), "x");
    expect(buildNeeded(root, INPUTS)).toMatch(/no build stamp/);
  });

  it("is satisfied right after a stamped build", () => {
    built();
    expect(buildNeeded(root, INPUTS)).toBeNull();
  });

  it("notices an edited, an added and a removed source file", () => {
    built();
    const page = path.join(root, "app", "page.tsx");
    const later = new Date(Date.now() + 60_000);
    utimesSync(page, later, later);
    expect(buildNeeded(root, INPUTS)).toBe("app/page.tsx changed since the last build");

    built();
    writeFileSync(path.join(root, "lib", "ledger", "queries.ts"), "export {}");
    expect(buildNeeded(root, INPUTS)).toBe("lib/ledger/queries.ts is new since the last build");

    built();
    rmSync(path.join(root, "lib", "ledger", "queries.ts"));
    expect(buildNeeded(root, INPUTS)).toBe("lib/ledger/queries.ts was removed since the last build");
  });

  it("notices a file whose mtime moved backwards (a checkout of older code)", () => {
    built();
    const earlier = new Date(Date.now() - 86_400_000);
    utimesSync(path.join(root, "package.json"), earlier, earlier);
    expect(buildNeeded(root, INPUTS)).toBe("package.json changed since the last build");
  });

  it("ignores test files next to the code", () => {
    built();
    writeFileSync(path.join(root, "lib", "ledger", "states.test.ts"), "test");
    writeFileSync(path.join(root, "lib", "ledger", "cancel.int.test.ts"), "test");
    expect(buildNeeded(root, INPUTS)).toBeNull();
    expect(Object.keys(fingerprint(root, INPUTS))).toEqual(["app/page.tsx", "lib/ledger/states.ts", "package.json"]);
  });
});
