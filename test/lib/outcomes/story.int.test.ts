import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CancellationEngine } from "../../../lib/cancellation/engine";
import { getCancellationSummary } from "../../../lib/cancellation/get-cancellation-summary";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";
import { setFaults } from "../../../lib/demo/faults";
import { startDemoServer, type DemoServer } from "../../../lib/demo/server";
import { witnessLog } from "../../../lib/demo/store";
import { demoTools } from "../../../lib/demo/tools";
import { createTask } from "../../../lib/ledger/create-task";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { isTerminalItem } from "../../../lib/ledger/states";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";
import { ToolRegistry } from "../../../lib/tools/registry";
import { WorkerPool } from "../../../lib/workers/worker-pool";

/**
 * Issue 20, item 4: a late success does not rewrite history. The export's cancel endpoint answers 503 at the Stop: the
 * Stop settles as "could not be stopped — the service refused the cancel; still running" (CANCELLATION_FAILED). When the
 * service recovers and the export then stops (or, with "Ignore cancellation", runs to its end), that is ADDED as a
 * "since the Stop" line; the settled verdict stays. Driven by the ledger's own facts (settlement, the child's end) and the
 * reports service's witness log, not by timers.
 */
let t: TestDatabase;
let demo: DemoServer;
let registry: ToolRegistry;
let engine: CancellationEngine;
let pool: WorkerPool;
beforeAll(async () => {
  t = await createTestDatabase();
  demo = await startDemoServer({ file: ":memory:" });
  registry = new ToolRegistry();
  for (const tool of demoTools({ baseUrl: demo.url, pollMs: 20 })) registry.register(tool);
  engine = new CancellationEngine(t.database, { registry, verifyDelayMs: 20, settleTimeoutMs: 500, reconcileIntervalMs: 200 }).start(200);
  pool = new WorkerPool({ database: t.database, registry, concurrency: 2, leaseMs: 10_000 }).start();
});
afterAll(async () => {
  await pool?.stop();
  await engine?.stop();
  await demo?.close();
  await t?.drop();
});

const until = async <T>(probe: () => Promise<T>, what: string, ms = 30_000): Promise<NonNullable<T>> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

async function exportAndStop(rows: number) {
  const task = await createTask(t.database, { title: `export ${rows} rows`, ownerId: "rita" }, "agent:test");
  const item = await scheduleWorkItem(
    t.database,
    { taskId: task.id, kind: "remote_tool", toolName: "reports.export_report", mechanism: "provider_cancel", intentVersion: 1, input: { rows, rowMs: 20 } },
    "agent:test",
  );
  const before = witnessLog(demo.db, "reports").length;
  await until(
    async () =>
      witnessLog(demo.db, "reports")
        .slice(before)
        .some((w) => w.action === "export_started"),
    "the export to start at the service",
  );
  await requestCancellation(t.database, { taskId: task.id, reason: "wrong report", actor: "user:rita" });
  const settled = await until(async () => (await t.database.prisma.task.findUniqueOrThrow({ where: { id: task.id } })).settledAt, "the Stop to settle");
  return { task, item, settledAt: settled };
}

describe(`issue 20 item 4: what happened after the Stop is added, never written over it (${testEngine()})`, () => {
  it("cancel refused (503), then the service recovers and the export stops late: the verdict stays 'could not be stopped', a since-the-Stop line adds the rest", async () => {
    setFaults(demo.db, "reports", { cancelUnavailable: true });
    try {
      const { task, item } = await exportAndStop(1_500);
      const atSettlement = await getCancellationSummary(t.database, task.id);
      expect(atSettlement.status).toBe("CANCELLATION_FAILED");
      expect(atSettlement.user_message).toContain("could not be stopped — the service refused the cancel");
      expect(atSettlement.since_settlement).toEqual([]);
      // The service recovers: the worker's next cancel goes through and the export stops with the rows it has.
      setFaults(demo.db, "reports", {});
      const ended = await until(async () => {
        const row = await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } });
        return isTerminalItem(row.status) ? row : null;
      }, "the export to end after the recovery");
      // The service's own record of how it ended: cancelled after some rows (the usual case), or — when the recovered
      // cancel came too late under load — completed with all of them. Either is what the since-the-Stop line must say.
      const witnessed = witnessLog(demo.db, "reports");
      const cancelledAt = witnessed.find((w) => w.action === "export_cancelled");
      const rowsAtService = cancelledAt ? (cancelledAt.detail as { rowsWritten: number }).rowsWritten : 1_500;
      expect(witnessed.some((w) => w.action === "export_cancelled" || w.action === "export_completed")).toBe(true);

      const later = await getCancellationSummary(t.database, task.id);
      // The settled verdict stays (it was not rewritten as "Stopped · One partial result kept").
      expect(later.status).toBe("CANCELLATION_FAILED");
      expect(later.user_message).toMatch(
        /^Stopped new work\. One step could not be stopped — the service refused the cancel; it was still running when the Stop settled\./,
      );
      const call = later.tool_calls.find((c) => c.tool_name === "reports.export_report")!;
      expect(call.settled_outcome).toMatchObject({ kind: "could_not_stop_running" });
      // …and what happened since is added, with its time and what it kept.
      expect(later.since_settlement).toHaveLength(1);
      const since = later.since_settlement[0];
      expect(since.ended_after_stop_ms).toBeGreaterThan(0);
      expect(since.ignored_cancel).toBe(false);
      expect(ended.status).toBe(cancelledAt ? "partial" : "completed");
      expect(since.sentence).toMatch(
        cancelledAt
          ? /^The step reports\.export_report: it ran .+ past the Stop, then stopped — the complete part of its result is kept \([\d,]+ rows\)\.$/
          : /^The step reports\.export_report: it ran .+ past the Stop, then finished \(1,500 rows\)\.$/,
      );
      expect(since.sentence).toContain(`(${rowsAtService.toLocaleString("en-US")} rows)`);
      expect(later.user_message).toContain(`Since the Stop: ${since.sentence}`);
    } finally {
      setFaults(demo.db, "reports", {});
    }
  }, 60_000);

  it("'Ignore cancellation': the export runs to its end after the Stop — the since-the-Stop line says the service ignored the cancel and ran on", async () => {
    setFaults(demo.db, "reports", { ignoreCancellation: true });
    try {
      const { task, item } = await exportAndStop(150);
      const atSettlement = await getCancellationSummary(t.database, task.id);
      await until(async () => isTerminalItem((await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } })).status), "the export to finish");
      const witnessed = witnessLog(demo.db, "reports").map((w) => w.action);
      expect(witnessed).toContain("cancel_ignored");
      expect(witnessed).toContain("export_completed");
      const later = await getCancellationSummary(t.database, task.id);
      expect(later.status).toBe(atSettlement.status);
      expect(later.since_settlement).toHaveLength(1);
      expect(later.since_settlement[0]).toMatchObject({ ignored_cancel: true });
      expect(later.since_settlement[0].sentence).toMatch(/the service ignored the cancel and ran on: it ran .+ past the Stop, then finished \(150 rows\)\.$/);
    } finally {
      setFaults(demo.db, "reports", {});
    }
  }, 60_000);
});
