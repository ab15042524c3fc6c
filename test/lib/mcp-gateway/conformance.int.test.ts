import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureNode22, type Node22 } from "../../../scripts/node22";
import { createApiToken } from "../../../lib/auth/tokens";
import { CancellationEngine } from "../../../lib/cancellation/engine";
import { appRegistry } from "../../../lib/runtime/app-registry";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { CONFORMANCE_REVISIONS, EXPECTED_CONFORMANCE, type ScenarioResult } from "../../../lib/mcp-gateway/conformance-results";
import { startFixtureServer, type FixtureServer } from "../../support/mcp-gateway/fixture-server";
import { serveFetch } from "../../support/mcp-gateway/serve";

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12, on Node 22: it needs
 * fs.globSync) against the gateway as the app serves it — app/api/mcp/route.ts, the app's gateway built from a
 * config file (STOPLINE_MCP_CONFIG), real API-token authentication — with the suite's own test tools served by the
 * upstream behind it (testing/fixture-server.ts). Run per spec revision with `--requirements <revision>`: exactly
 * what that revision requires, at its wire (2025-11-25: the initialize handshake and sessions; 2026-07-28:
 * stateless, per-request `_meta`).
 *
 * The suite's client sends no Authorization header. Its way in is this test's, not the gateway's: a test-only
 * front door that adds an agent token to each request before it reaches the unchanged route (the route itself still
 * answers 401 without one — checked below).
 *
 * Every scenario's verdict must equal the published one (conformance-results.ts, the README's table): a regression
 * fails, and so does an improvement nobody recorded. Runs on the SQLite project only: the protocol is the same on
 * both databases, and the suite takes about a minute per revision.
 */

const ROOT = path.resolve(import.meta.dirname, "../../..");
const run = promisify(execFile);
const onPostgres = process.env.STOPLINE_TEST_DB === "postgres";
let t: TestDatabase;
let fixture: FixtureServer;
let engine: CancellationEngine;
let endpoint: { url: string; close(): Promise<void> };
let bare: { url: string; close(): Promise<void> };
let node22: Node22;
const tmp = mkdtempSync(path.join(tmpdir(), "stopline-conformance-"));
const previousConfig = process.env.STOPLINE_MCP_CONFIG;

describe.skipIf(onPostgres)("the official MCP conformance suite against the gateway (Node 22)", () => {
  beforeAll(async () => {
    [node22, t, fixture] = await Promise.all([ensureNode22(), createTestDatabase(), startFixtureServer()]);
    t.install();
    const config = path.join(tmp, "stopline.mcp.json");
    writeFileSync(
      config,
      JSON.stringify({
        servers: {
          conformance: {
            url: fixture.url,
            only: [
              "test_simple_text",
              "test_error_handling",
              "test_tool_with_progress",
              "test_image_content",
              "test_audio_content",
              "test_embedded_resource",
              "test_multiple_content_types",
              "test_tool_with_logging",
              "json_schema_2020_12_tool",
            ],
          },
        },
      }),
    );
    process.env.STOPLINE_MCP_CONFIG = config;
    const route = await import("../../../app/api/mcp/route");
    engine = new CancellationEngine(t.database, { registry: appRegistry(), verifyDelayMs: 50, settleTimeoutMs: 1_000 }).start(200);
    const token = (await createApiToken(t.database, { name: "conformance-suite", role: "agent" })).token;
    const dispatch = (request: Request) =>
      request.method === "GET" ? route.GET(request) : request.method === "DELETE" ? route.DELETE(request) : route.POST(request);
    // The test's front door: the suite's requests with an agent token added; everything else passes unchanged.
    endpoint = await serveFetch((request) => {
      const headers = new Headers(request.headers);
      headers.set("authorization", `Bearer ${token}`);
      return dispatch(new Request(request, { headers }));
    });
    bare = await serveFetch(dispatch);
  }, 900_000);

  afterAll(async () => {
    await bare?.close();
    await endpoint?.close();
    await engine?.stop();
    const { appGateway } = await import("../../../lib/mcp-gateway/app-gateway");
    await (await appGateway())?.gateway.close();
    await fixture?.close();
    await t?.drop();
    if (previousConfig === undefined) delete process.env.STOPLINE_MCP_CONFIG;
    else process.env.STOPLINE_MCP_CONFIG = previousConfig;
    rmSync(tmp, { recursive: true, force: true });
  });

  it("the route itself admits no request without an API token: 401, nothing reaches the gateway", async () => {
    const response = await fetch(bare.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
      }),
    });
    expect(response.status).toBe(401);
    expect((await response.json()).error.message).toMatch(/Authorization: Bearer/);
  });

  for (const revision of CONFORMANCE_REVISIONS) {
    it(`${revision}: every required scenario's verdict is the published one`, async () => {
      const out = path.join(tmp, revision);
      mkdirSync(out, { recursive: true });
      const { NODE_CHANNEL_FD: _ipc, ...env } = process.env;
      const suite = await run(
        node22.node,
        [node22.conformance, "server", "--url", endpoint.url, "--requirements", revision, "--output-dir", out, "--timeout", "20000"],
        { cwd: tmp, env, timeout: 600_000, maxBuffer: 32 * 1024 * 1024 },
      ).then(
        (r) => ({ code: 0, text: r.stdout + r.stderr }),
        (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? 1, text: `${e.stdout ?? ""}${e.stderr ?? ""}` }),
      );
      const results = readResults(out);
      const report = Object.entries(results)
        .map(([scenario, r]) => `${r.passed ? "pass" : "FAIL"}  ${scenario}${r.passed ? "" : `  — ${r.failures.join("; ").slice(0, 300)}`}`)
        .join("\n");
      mkdirSync(path.join(ROOT, "output"), { recursive: true });
      writeFileSync(path.join(ROOT, "output", `conformance-${revision}.txt`), `${report}\n\n${suite.text}`); // the full report, for a person
      expect(Object.keys(results).length, `the suite ran (exit ${suite.code}):\n${suite.text.slice(-3_000)}`).toBeGreaterThan(0);
      const expected = EXPECTED_CONFORMANCE[revision];
      const verdicts = Object.fromEntries(Object.entries(results).map(([s, r]) => [s, r.passed]));
      const published = Object.fromEntries(Object.entries(expected).map(([s, e]) => [s, e.passes]));
      expect(verdicts, report).toEqual(published);
    }, 600_000);
  }
});

/** The suite's output directory: one folder per scenario run, each with its checks.json. */
function readResults(dir: string): Record<string, ScenarioResult> {
  const results: Record<string, ScenarioResult> = {};
  const visit = (d: string) => {
    for (const name of readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, name.name);
      if (name.isDirectory()) visit(full);
      else if (name.name === "checks.json") {
        const scenario = /server-(.+)-\d{4}-\d{2}-\d{2}T/.exec(path.basename(d))?.[1] ?? path.basename(d);
        const checks = JSON.parse(readFileSync(full, "utf8")) as { id: string; status: string; errorMessage?: string }[];
        const failures = checks.filter((c) => c.status === "FAILURE").map((c) => `${c.id}: ${c.errorMessage ?? "failed"}`);
        results[scenario] = { passed: failures.length === 0 && checks.length > 0, failures };
      }
    }
  };
  visit(dir);
  return results;
}
