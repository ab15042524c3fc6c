import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveBootstrapToken } from "../../../scripts/start/bootstrap-token";

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "stopline-token-"));
  file = path.join(dir, "data", "bootstrap-token");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("resolveBootstrapToken", () => {
  it("uses STOPLINE_BOOTSTRAP_TOKEN when set, and writes nothing", () => {
    const result = resolveBootstrapToken({ env: { STOPLINE_BOOTSTRAP_TOKEN: " from-env " }, provider: "sqlite", file });
    expect(result).toEqual({ token: "from-env", source: "env" });
    expect(() => statSync(file)).toThrow();
  });

  it("generates a token on the first embedded start, stores it 0600 and reuses it afterwards", () => {
    const first = resolveBootstrapToken({ env: {}, provider: "sqlite", file });
    expect(first?.source).toBe("generated");
    expect(first?.token).toMatch(/^stl_[A-Za-z0-9_-]{43}$/);
    expect(readFileSync(file, "utf8").trim()).toBe(first?.token);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const second = resolveBootstrapToken({ env: {}, provider: "sqlite", file });
    expect(second).toEqual({ token: first?.token, source: "file", file });
  });

  it("tightens the permissions of a stored token that is readable by others", () => {
    resolveBootstrapToken({ env: {}, provider: "sqlite", file });
    chmodSync(file, 0o644);
    resolveBootstrapToken({ env: {}, provider: "sqlite", file });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("generates nothing on PostgreSQL", () => {
    expect(resolveBootstrapToken({ env: {}, provider: "postgres", file })).toBeNull();
    expect(() => statSync(file)).toThrow();
  });

  it("refuses an empty token file rather than guessing", () => {
    resolveBootstrapToken({ env: {}, provider: "sqlite", file });
    writeFileSync(file, "\n");
    expect(() => resolveBootstrapToken({ env: {}, provider: "sqlite", file })).toThrow(/holds no token/);
  });
});
