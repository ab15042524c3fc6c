import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startDemoServer } from "../demo/server";
import { demoTools } from "../demo/tools";
import { startJobServer } from "./http-job-server";
import { httpJobTool } from "../tools/adapters/http-job";
import { connectMcpTools } from "../tools/adapters/mcp";
import { dishonestOrderTool } from "./dishonest-tool";
import type { ConformanceSubject } from "./run-conformance";

/** An input each demo tool accepts, small enough that a case ends in seconds. */
const DEMO_INPUTS: Record<string, unknown> = {
  "shop.check_stock": { sku: "chair" },
  "shop.create_order": { items: [{ sku: "mug", quantity: 1 }] },
  "crm.create_record": { name: "Ada Lovelace", email: "ada@example.com" },
  "mailer.send_email": { to: "ada@example.com", subject: "conformance", body: "a test message" },
  "reports.export_report": { rows: 60, rowMs: 25 },
  "inference.generate": { prompt: "say hello", words: 40, wordMs: 25 },
};

/**
 * The tools the project's own kit runs in CI (`npm run conformance`): every demo tool against a fresh demo world,
 * the HTTP job adapter against a real job service, and the deliberately dishonest example. Each comes with the
 * service it talks to; `close()` ends them all.
 */
export async function conformanceSubjects(): Promise<{ subjects: Map<string, ConformanceSubject>; close(): Promise<void> }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "stopline-conformance-"));
  const demo = await startDemoServer({ file: path.join(dir, "demo.db"), port: 0 });
  const jobs = await startJobServer({ cancelMode: "honour" });
  const subjects = new Map<string, ConformanceSubject>();
  for (const tool of demoTools({ baseUrl: demo.url, callTimeoutMs: 2_000 })) subjects.set(tool.name, { tool, input: DEMO_INPUTS[tool.name] ?? {} });
  const job = httpJobTool({
    name: "adapter.http_job",
    kind: "remote_tool",
    risk: "low",
    commitsEffect: false,
    startUrl: `${jobs.url}/jobs`,
    statusUrl: `${jobs.url}/jobs/{id}`,
    cancelUrl: `${jobs.url}/jobs/{id}/cancel`,
    lookupUrl: (key) => `${jobs.url}/jobs?idempotency_key=${encodeURIComponent(key)}`,
    pollMs: 20,
    requestTimeoutMs: 2_000,
  });
  subjects.set(job.name, { tool: job, input: { steps: 40, stepMs: 25 } });
  // The MCP adapter, against the project's demo MCP server over stdio (its count_slowly honours cancellation).
  const root = path.resolve(import.meta.dirname, "../..");
  const mcp = await connectMcpTools({
    prefix: "adapter_mcp",
    confirmGraceMs: 600,
    transport: {
      stdio: { command: process.execPath, args: ["--import", "tsx", path.join(root, "lib/tools/adapters/demo-mcp-server.ts")], cwd: root, stderr: "ignore" },
    },
  });
  for (const tool of mcp.tools) subjects.set(tool.name, { tool, input: { steps: 30, delayMs: 40 } });
  const dishonest = dishonestOrderTool();
  subjects.set(dishonest.name, { tool: dishonest as never, input: { item: "chair" } });
  return {
    subjects,
    async close() {
      await demo.close();
      await jobs.close();
      await mcp.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
