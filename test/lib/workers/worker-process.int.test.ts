import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";
import { startDemoServer, type DemoServer } from "../../../lib/demo/server";
import { witnessLog } from "../../../lib/demo/store";
import { createTask } from "../../../lib/ledger/create-task";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";

let t: TestDatabase;
let demo: DemoServer;
let worker: ChildProcess | undefined;
beforeAll(async () => {
  t = await createTestDatabase();
  demo = await startDemoServer({ file: ":memory:" });
});
afterAll(async () => {
  worker?.kill("SIGKILL");
  await demo?.close();
  await t?.drop();
});

const until = async (what: string, check: () => Promise<boolean>, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

it("npm run worker: a separate worker process claims and runs the registered tools, and a Stop recorded by another process reaches it (its maintenance pass or its heartbeat)", async () => {
  const { NODE_CHANNEL_FD: _ipc, ...env } = process.env; // see test/lib/db/database.int.test.ts
  let output = "";
  worker = spawn(process.execPath, ["--import", "tsx", path.resolve(import.meta.dirname, "../../../scripts/worker.ts")], {
    env: { ...env, DATABASE_URL: t.url, STOPLINE_DEMO_URL: demo.url, STOPLINE_WORKERS: "2", STOPLINE_WORKER_ID: "separate-1", STOPLINE_MAINTENANCE_MS: "200" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  worker.stdout!.on("data", (d) => (output += d));
  worker.stderr!.on("data", (d) => (output += d));
  await until("the worker to start", async () => /stopline worker separate-1/.test(output));
  expect(output).toMatch(/tools: .*shop\.check_stock/);

  const task = await createTask(t.database, { title: "read, then a long export", ownerId: "o" }, "agent:t");
  const read = await scheduleWorkItem(
    t.database,
    { taskId: task.id, kind: "remote_tool", toolName: "shop.check_stock", mechanism: "abort_signal", intentVersion: 1, input: {} },
    "agent:t",
  );
  await until("the read to complete", async () => (await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: read.id } })).status === "completed");
  expect((await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: read.id } })).leaseOwner).toBeNull();
  expect(await t.database.prisma.ledgerEvent.count({ where: { workItemId: read.id, type: "work_item.claimed", actor: "worker:separate-1" } })).toBe(1);
  expect(witnessLog(demo.db, "shop").map((w) => w.action)).toContain("stock_checked");

  // A generation in the separate process; the Stop is recorded here (another process). It reaches the worker
  // through its own engine's maintenance pass (which sees the boundary in the ledger) or its next heartbeat.
  const gen = await scheduleWorkItem(
    t.database,
    {
      taskId: task.id,
      kind: "model_request",
      toolName: "inference.generate",
      mechanism: "abort_signal",
      intentVersion: 1,
      input: { prompt: "a long answer", words: 2000, wordMs: 20 },
    },
    "agent:t",
  );
  await until("the generation to run", async () => (await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: gen.id } })).status === "running");
  await requestCancellation(t.database, { taskId: task.id, reason: "stop", actor: "agent:t" });
  await until(
    "the generation to stop",
    async () => ["cancelled", "cancelled_incomplete"].includes((await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: gen.id } })).status),
    30_000,
  );
  await until("the service to see the caller go away", async () => witnessLog(demo.db, "inference").some((w) => w.action === "generation_stopped"));
  expect(witnessLog(demo.db, "inference").map((w) => w.action)).not.toContain("generation_completed");
}, 90_000);
