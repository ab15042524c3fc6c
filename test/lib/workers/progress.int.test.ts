import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";
import { claimWorkItem } from "../../../lib/ledger/claim-work-item";
import { createTask } from "../../../lib/ledger/create-task";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { Mechanism, WorkItemKind } from "../../../lib/ledger/states";
import type { ToolDefinition } from "../../../lib/tools/contract";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { runWorkItem } from "../../../lib/workers/run-work-item";

/**
 * Progress from running code (ctx.reportProgress): the latest report is on the work item, and reports that
 * come faster than the ledger needs are coalesced — a tool that reports on every row does not write a ledger
 * event per row. Runs on SQLite and PostgreSQL.
 */

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => t?.drop());

async function claimed(toolName: string) {
  const task = await createTask(t.database, { title: "export rows", ownerId: "agent-1" }, "agent:test");
  await scheduleWorkItem(
    t.database,
    { taskId: task.id, kind: WorkItemKind.remoteTool, toolName, mechanism: Mechanism.abortSignal, intentVersion: 1 },
    "agent:test",
  );
  const item = await claimWorkItem(t.database, { workerId: "w-progress", toolNames: [toolName] });
  expect(item).not.toBeNull();
  return item!;
}

const countingTool = (name: string, reports: number, everyMs: number): ToolDefinition => ({
  name,
  kind: WorkItemKind.remoteTool,
  risk: "low",
  commitsEffect: false,
  mechanism: Mechanism.abortSignal,
  async run(_input, ctx) {
    for (let done = 1; done <= reports; done++) {
      await ctx.reportProgress({ done, total: reports, unit: "rows" });
      await new Promise((r) => setTimeout(r, everyMs));
    }
    return { rows: reports };
  },
});

describe("progress of running code", () => {
  it("a tool that reports 200 times in about a second leaves the last report on the item and a handful of events, not 200", async () => {
    const item = await claimed("test.count_rows");
    const report = await runWorkItem({
      database: t.database,
      tool: countingTool("test.count_rows", 200, 5),
      item,
      workerId: "w-progress",
      leaseMs: 10_000,
      heartbeatMs: 3_000,
    });
    expect(report.outcome).toBe("completed");
    const events = await t.database.prisma.ledgerEvent.findMany({ where: { workItemId: item.id, type: "work_item.progress" }, orderBy: { seq: "asc" } });
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(events.length).toBeLessThan(40); // at most one write per quarter second (≈ 1 s of reporting)
    const dones = events.map((e) => (e.data as { done: number }).done);
    expect(dones).toEqual([...dones].sort((a, b) => a - b)); // in order: a coalesced report is always the latest
    const stored = await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } });
    expect(stored.status).toBe("completed");
    expect(stored.progress).toMatchObject({ done: dones.at(-1), total: 200, unit: "rows" });
  });

  it("reports after the Stop are dropped: the item's progress stays where the running code was when it was told to stop", async () => {
    const item = await claimed("test.count_until_stop");
    const tool: ToolDefinition = {
      ...countingTool("test.count_until_stop", 0, 0),
      async run(_input, ctx) {
        await ctx.reportProgress({ done: 1, total: 10 });
        await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
        await ctx.reportProgress({ done: 2, total: 10 });
        throw ctx.signal.reason;
      },
    };
    const running = runWorkItem({ database: t.database, tool, item, workerId: "w-progress", leaseMs: 10_000, heartbeatMs: 3_000 });
    await expect.poll(async () => (await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } })).progress).toMatchObject({ done: 1 });
    await requestCancellation(t.database, { taskId: item.taskId, actor: "user:test", reason: "Stop" });
    expect((await running).outcome).toBe("cancelled");
    const stored = await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } });
    expect(stored.progress).toMatchObject({ done: 1, total: 10 });
  });
});
