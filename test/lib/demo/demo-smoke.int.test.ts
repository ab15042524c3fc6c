import { afterAll, beforeAll, expect, it } from "vitest";
import { CancellationEngine } from "../../../lib/cancellation/engine";
import { getCancellationSummary } from "../../../lib/cancellation/get-cancellation-summary";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";
import { createTask } from "../../../lib/ledger/create-task";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { ToolRegistry } from "../../../lib/tools/registry";
import { WorkerPool } from "../../../lib/workers/worker-pool";
import { startDemoServer, type DemoServer } from "../../../lib/demo/server";
import { witnessLog } from "../../../lib/demo/store";
import { demoTools } from "../../../lib/demo/tools";

let t: TestDatabase;
let demo: DemoServer;
let pool: WorkerPool;
let engine: CancellationEngine;
beforeAll(async () => {
  t = await createTestDatabase();
  demo = await startDemoServer({ file: ":memory:" });
  const registry = new ToolRegistry();
  for (const tool of demoTools({ baseUrl: demo.url, pollMs: 20 })) registry.register(tool);
  pool = new WorkerPool({ database: t.database, registry, concurrency: 4, leaseMs: 10_000 }).start();
  engine = new CancellationEngine(t.database, { registry, verifyDelayMs: 50, settleTimeoutMs: 2_000 }).start(300);
});
afterAll(async () => {
  await pool?.stop();
  await engine?.stop();
  await demo?.close();
  await t?.drop();
});

const until = async (check: () => Promise<boolean>, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 25));
  }
};

it("Stop during a report export: the complete prefix is kept as a partial result and the lock and temp file are verified released", async () => {
  const task = await createTask(t.database, { title: "export then order", ownerId: "o" }, "agent:t");
  const exportItem = await scheduleWorkItem(
    t.database,
    {
      taskId: task.id,
      kind: "remote_tool",
      toolName: "reports.export_report",
      mechanism: "provider_cancel",
      intentVersion: 1,
      input: { rows: 500, rowMs: 10 },
    },
    "agent:t",
  );
  await until(async () => (await t.database.prisma.resource.count({ where: { workItemId: exportItem.id } })) === 2);
  await new Promise((r) => setTimeout(r, 100));
  await requestCancellation(t.database, { taskId: task.id, reason: "user pressed Stop", actor: "agent:t" });
  await until(async () => (await t.database.prisma.task.findUniqueOrThrow({ where: { id: task.id } })).stage === "cancelled");
  const item = await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: exportItem.id } });
  expect(item.status).toBe("partial");
  const rows = (item.partialResult as { rows: string[] }).rows;
  expect(rows.length).toBeGreaterThan(0);
  expect(rows.length).toBeLessThan(500);
  expect(rows.at(-1)).toBe(`row ${rows.length}`); // a complete prefix
  const resources = await t.database.prisma.resource.findMany({ where: { workItemId: exportItem.id } });
  expect(resources.map((r) => r.state)).toEqual(["released", "released"]);
  expect(resources.every((r) => r.verifiedAt)).toBe(true);
  const witnessed = witnessLog(demo.db, "reports").map((w) => w.action);
  expect(witnessed).toContain("export_cancelled");
  expect(witnessed).toContain("lock_released");
  const summary = await getCancellationSummary(t.database, task.id);
  expect(summary.status).toBe("CANCELLED");
  expect(summary.cancelled_tool_calls[0]).toMatchObject({ cancellation_status: "CANCELLED", partial_result: { marker: "PARTIAL_RESULT" } });
  expect(summary.user_message).toMatch(/partial result kept/);
});
