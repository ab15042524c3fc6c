import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTask } from "../../../lib/ledger/create-task";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { connectMcpTools, type McpToolSet } from "../../../lib/tools/adapters/mcp";
import { ToolRegistry } from "../../../lib/tools/registry";
import { WorkerPool } from "../../../lib/workers/worker-pool";
import { toolCallSpan, traceparentOf } from "../../../lib/observability/ids";

/**
 * A tool call's trace context reaches an MCP server: the adapter puts the call's traceparent in the request's
 * `_meta` (how MCP carries it), and the real demo server (stdio) reports what it received in its witness log.
 */
const ROOT = path.resolve(import.meta.dirname, "../../..");
let t: TestDatabase;
let demo: McpToolSet;
const witness: { witness: string; traceparent?: string | null }[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  demo = await connectMcpTools({
    prefix: "demo",
    transport: {
      stdio: { command: process.execPath, args: ["--import", "tsx", path.join(ROOT, "lib/tools/adapters/demo-mcp-server.ts")], cwd: ROOT, stderr: "pipe" },
    },
  });
  let buffered = "";
  demo.stderr?.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split("\n");
    buffered = lines.pop()!;
    for (const line of lines) if (line.startsWith("{")) witness.push(JSON.parse(line));
  });
});
afterAll(async () => {
  await demo?.close();
  await t?.drop();
});

describe("trace context to MCP servers", () => {
  it("tools/call carries _meta.traceparent: the tool call's span in its task's trace", async () => {
    const tool = demo.tools.find((x) => x.name === "demo.count_slowly")!;
    const pool = new WorkerPool({ database: t.database, registry: new ToolRegistry().register(tool), concurrency: 1, pollMs: 20 }).start();
    try {
      const task = await createTask(t.database, { title: "count", ownerId: "alice" }, "agent:test");
      const child = await scheduleWorkItem(
        t.database,
        {
          taskId: task.id,
          kind: tool.kind,
          toolName: tool.name,
          mechanism: tool.mechanism,
          commitsEffect: tool.commitsEffect,
          intentVersion: 1,
          input: { steps: 2, delayMs: 5 },
        },
        "agent:test",
      );
      const deadline = Date.now() + 15_000;
      while ((await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: child.id } })).status !== "completed") {
        if (Date.now() > deadline) throw new Error("the call did not complete");
        await new Promise((r) => setTimeout(r, 20));
      }
      const row = await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: child.id } });
      // Traces are not exported in this test: the context still travels, flagged not sampled.
      expect(witness.filter((w) => w.witness === "started").map((w) => w.traceparent)).toEqual([traceparentOf(toolCallSpan(row), false)]);
    } finally {
      await pool.stop();
    }
  });
});
