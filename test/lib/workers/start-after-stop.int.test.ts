import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";
import type { WorkItem } from "../../../lib/db/generated/sqlite/client.ts";
import { startDemoServer, type DemoServer } from "../../../lib/demo/server";
import { witnessLog } from "../../../lib/demo/store";
import { demoTools } from "../../../lib/demo/tools";
import { claimWorkItem } from "../../../lib/ledger/claim-work-item";
import { createTask } from "../../../lib/ledger/create-task";
import { recoverExpiredLeases } from "../../../lib/ledger/recover-expired-leases";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { WorkItemStatus } from "../../../lib/ledger/states";
import type { ToolDefinition } from "../../../lib/tools/contract";
import { runWorkItem } from "../../../lib/workers/run-work-item";

/**
 * Issue 19 ("lets no new work start"): a slot claims a model generation, and only then — before its request leaves —
 * the Stop lands, or the worker stalls until its lease is recovered. The call must never reach the service: a
 * generation a person stopped must not start afterwards. Judged by the inference service's own witness log.
 * Both failed before the runner checked its lease and the Stop notices it had missed (lib/workers/stop-notices.ts).
 */

let t: TestDatabase;
let demo: DemoServer;
let generate: ToolDefinition;

beforeAll(async () => {
  [t, demo] = await Promise.all([createTestDatabase(), startDemoServer({ file: ":memory:" })]);
  generate = demoTools({ baseUrl: demo.url }).find((tool) => tool.name === "inference.generate")!;
});
afterAll(async () => {
  await demo?.close();
  await t?.drop();
});

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function claimedGeneration(title: string, leaseMs: number) {
  const task = await createTask(t.database, { title, ownerId: "alice" }, "agent:test");
  const item = await scheduleWorkItem(
    t.database,
    {
      taskId: task.id,
      kind: generate.kind,
      toolName: generate.name,
      mechanism: generate.mechanism,
      commitsEffect: generate.commitsEffect,
      intentVersion: task.intentVersion,
      input: { prompt: title, words: 5, wordMs: 10 },
    },
    "agent:test",
  );
  const claimed = await claimWorkItem(t.database, { workerId: "slot-1", toolNames: [generate.name], leaseMs });
  expect(claimed?.id, "the slot claimed this test's generation").toBe(item.id);
  return { task, item: claimed as WorkItem };
}

const generationsFor = (idempotencyKey: string) =>
  witnessLog(demo.db).filter(
    (e) => e.service === "inference" && e.action === "generation_started" && (e.detail as { key?: string } | null)?.key === idempotencyKey,
  );

describe(`a claimed call whose Stop lands before its request leaves (${testEngine()})`, () => {
  it("the Stop was announced before the run began listening: the generation is never requested, and the step reads cancelled", async () => {
    const { task, item } = await claimedGeneration("a reply the person stopped", 30_000);
    await requestCancellation(t.database, { taskId: task.id, reason: "user pressed Stop", actor: "user:alice" });
    await nextTurn(); // the boundary's notice has gone by: nobody was listening for this item yet

    const report = await runWorkItem({ database: t.database, tool: generate, item, workerId: "slot-1", leaseMs: 30_000, heartbeatMs: 10_000 });

    expect(report.outcome).toBe("cancelled");
    expect(generationsFor(item.idempotencyKey), "the inference service never started this generation").toEqual([]);
    const row = await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } });
    expect(row.status).toBe(WorkItemStatus.cancelled);
  });

  it("the worker stalled past its lease and the lease was recovered: the stale worker never starts the generation", async () => {
    const { task, item } = await claimedGeneration("a reply whose worker stalled", 200);
    await sleep(300);
    const recovered = await recoverExpiredLeases(t.database);
    expect(recovered.requeued, "lease recovery put the item back in the queue").toContain(item.id);

    const report = await runWorkItem({ database: t.database, tool: generate, item, workerId: "slot-1", leaseMs: 200, heartbeatMs: 10_000 });

    expect(report.outcome).toBe("lost_lease");
    expect(generationsFor(item.idempotencyKey), "the inference service never heard from the stale worker").toEqual([]);
    const row = await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } });
    expect(row.status, "the item waits for a worker that holds its lease").toBe(WorkItemStatus.queued);
    expect(row.leaseToken).toBeNull();
    await requestCancellation(t.database, { taskId: task.id, reason: "the test is over", actor: "user:alice" }); // leaves the queue to the next scenario
  });

  it("no Stop and a fresh lease: the generation runs as before", async () => {
    const { item } = await claimedGeneration("a reply nobody stopped", 30_000);
    const report = await runWorkItem({ database: t.database, tool: generate, item, workerId: "slot-1", leaseMs: 30_000, heartbeatMs: 10_000 });
    expect(report.outcome).toBe("completed");
    expect(generationsFor(item.idempotencyKey)).toHaveLength(1);
  });
});
