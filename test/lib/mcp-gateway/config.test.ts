import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadGatewayConfig } from "../../../lib/mcp-gateway/config";

const dir = mkdtempSync(path.join(tmpdir(), "stopline-gateway-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, value: unknown) => {
  const file = path.join(dir, name);
  writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value));
  return file;
};

describe("the gateway's config file", () => {
  it("accepts stdio and HTTP servers with stop contracts; stdio cwd resolves against the file's folder", () => {
    const config = loadGatewayConfig(
      write("ok.json", {
        servers: {
          local: {
            stdio: { command: "node", args: ["server.js"], cwd: "servers" },
            tools: { write: { commitsEffect: true, risk: "high" }, watch: { mechanism: "none" } },
          },
          remote: { url: "http://127.0.0.1:9/mcp", protocol: "2026-07-28", prefix: "remote." },
        },
      }),
    );
    expect(config.servers.local.stdio!.cwd).toBe(path.join(dir, "servers"));
    expect(config.servers.local.tools!.watch.mechanism).toBe("none");
    expect(config.servers.remote.protocol).toBe("2026-07-28");
  });

  it.each([
    ["both stdio and url", { servers: { x: { stdio: { command: "a" }, url: "http://h/mcp" } } }, /servers\.x: each server needs exactly one of stdio or url/],
    ["a mechanism MCP cannot offer", { servers: { x: { url: "http://h/mcp", tools: { t: { mechanism: "rollback" } } } } }, /servers\.x\.tools\.t\.mechanism/],
    ["an unknown protocol revision", { servers: { x: { url: "http://h/mcp", protocol: "2024-01-01" } } }, /servers\.x\.protocol/],
    ["an unknown field", { servers: { x: { url: "http://h/mcp", retries: 3 } } }, /servers\.x/],
    ["a bad server name", { servers: { "a b": { url: "http://h/mcp" } } }, /servers\.a b: Invalid key/],
  ])("refuses %s, naming the field", (_what, value, message) => {
    expect(() => loadGatewayConfig(write("bad.json", value))).toThrow(message);
  });

  it("refuses a file that is not JSON", () => {
    expect(() => loadGatewayConfig(write("broken.json", "{ servers: "))).toThrow(/JSON/);
  });
});
