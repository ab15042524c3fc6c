import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CancellationEngine } from "../../../lib/cancellation/engine";
import { getCancellationSummary } from "../../../lib/cancellation/get-cancellation-summary";
import { startDemoServer, type DemoServer } from "../../../lib/demo/server";
import { witnessLog } from "../../../lib/demo/store";
import { demoTools } from "../../../lib/demo/tools";
import { AppError } from "../../../lib/errors";
import { openIncident } from "../../../lib/incidents/open-incident";
import { confirmLift, requestLift } from "../../../lib/incidents/lift-incident";
import { LedgerEvent } from "../../../lib/ledger/events";
import { taskRowFacts } from "../../../lib/ledger/task-row-facts";
import { refusalOf } from "../../../lib/outcomes/task-standing";
import { queryAudit } from "../../../lib/audit/query-audit";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";
import { ToolRegistry } from "../../../lib/tools/registry";
import { WorkerPool } from "../../../lib/workers/worker-pool";
import { shopPrices, startTurn } from "../../../lib/agent/conversation";
import { settleTurn, startTurnSettler } from "../../../lib/agent/settle-turn";

/**
 * Issue 20's new paths, as a person reads them after the fact — the ledger and the demo services' witness logs,
 * never a claim one of them contradicts. Items 2 (a kill switch cuts a person's work short) and 3 (a message refused
 * because its tool is quarantined).
 */
let t: TestDatabase;
let demo: DemoServer;
let registry: ToolRegistry;
let engine: CancellationEngine;
beforeAll(async () => {
  t = await createTestDatabase();
  demo = await startDemoServer({ file: ":memory:" });
  registry = new ToolRegistry();
  for (const tool of demoTools({ baseUrl: demo.url, pollMs: 20 })) registry.register(tool);
  engine = new CancellationEngine(t.database, { registry, verifyDelayMs: 20, settleTimeoutMs: 2_000, reconcileIntervalMs: 200 }).start(200);
});
afterAll(async () => {
  await engine?.stop();
  await demo?.close();
  await t?.drop();
});

const agent = () => ({ prices: shopPrices(demo.url) });
const until = async <T>(probe: () => Promise<T>, what: string, ms = 15_000): Promise<NonNullable<T>> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe(`issue 20: what people read stays true on the new paths (${testEngine()})`, () => {
  it("item 3 — a message refused because its tool is quarantined ends at once: no running task, nothing to stop; the console and the audit say refused", async () => {
    const incident = await openIncident(t.database, {
      targetKind: "tool",
      target: "reports.export_report",
      reason: "exports leak rows of other tenants",
      actor: "operator:olivia",
      actorId: "person:olivia",
    });
    try {
      const refused = await startTurn(t.database, agent(), {
        ownerId: "rita",
        conversationId: "c-refused",
        text: "export a report of 500 rows",
        actor: "user:rita",
        turnId: "turn-refused",
      }).catch((e) => e);
      expect(refused).toBeInstanceOf(AppError);
      expect(refused).toMatchObject({ code: "quarantined", details: { reason: "exports leak rows of other tenants" } });

      const task = await t.database.prisma.task.findUniqueOrThrow({
        where: { conversationId_turnId: { conversationId: "c-refused", turnId: "turn-refused" } },
        include: { workItems: true },
      });
      // The task ended with the message: nothing of it runs, no Stop has anything to stop.
      expect(task.stage).toBe("failed");
      expect(task.workItems).toHaveLength(0);
      expect(refusalOf(task)).toContain("reports.export_report is quarantined by an incident: exports leak rows of other tenants");
      expect(await t.database.prisma.task.count({ where: { ownerId: "rita", stage: { in: ["active", "cancel_requested"] } } })).toBe(0);
      // The ledger's history says so (task.failed, with the refusal), and the console's row and the audit read "refused".
      const events = await t.database.prisma.ledgerEvent.findMany({ where: { taskId: task.id }, orderBy: { seq: "asc" } });
      expect(events.map((e) => e.type)).toEqual([LedgerEvent.taskCreated, LedgerEvent.taskFailed]);
      expect((await taskRowFacts(t.database, [task])).get(task.id)?.standing).toBe("refused");
      const audit = await queryAudit(t.database, { taskId: task.id });
      expect(refusalOf(audit.tasks[0])).not.toBeNull();
      // The settler has nothing to end (it would have left it "running · no steps" forever before).
      expect(await settleTurn(t.database, task.id)).toBeNull();
      // The reports service never saw an export.
      expect(witnessLog(demo.db, "reports").filter((w) => w.action === "export_started")).toHaveLength(0);
    } finally {
      await requestLift(t.database, { incidentId: incident.incident.id, reason: "fixed", actor: "operator:olivia", actorId: "person:olivia" });
      await confirmLift(t.database, { incidentId: incident.incident.id, actor: "operator:pat", actorId: "person:pat" });
    }
  });

  it("item 2 — a kill switch that cuts a person's export short is a Stop: the task is stopped (not completed) by the incident, and the summary says who and why", async () => {
    const pool = new WorkerPool({ database: t.database, registry, concurrency: 4, leaseMs: 10_000 }).start();
    const stopSettler = startTurnSettler(t.database, { sweepMs: 60_000 });
    try {
      const turn = await startTurn(t.database, agent(), {
        ownerId: "kim",
        conversationId: "c-incident",
        text: "export a report of 6000 rows",
        actor: "user:kim@example.com",
        turnId: "turn-incident",
      });
      const exportItem = await until(async () => {
        const item = await t.database.prisma.workItem.findFirst({ where: { taskId: turn.taskId, toolName: "reports.export_report", status: "running" } });
        return item && witnessLog(demo.db, "reports").some((w) => w.action === "export_started") ? item : null;
      }, "the export to run at the service");
      const opened = await openIncident(t.database, {
        targetKind: "tool",
        target: "reports.export_report",
        reason: "exports leak rows of other tenants",
        actor: "operator:olivia",
        actorId: "person:olivia",
      });
      try {
        expect(opened.stoppedWorkItems).toContain(exportItem.id);
        // The turn is stopped by the incident — the settler records it as soon as the incident's Stop of its export is in.
        const task = await until(async () => {
          const row = await t.database.prisma.task.findUniqueOrThrow({ where: { id: turn.taskId } });
          const exported = await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: exportItem.id } });
          // (on a287450 the turn ended "completed" once its steps had: that is what this waits for too)
          return exported.stopSettledAt && ((row.settledAt && row.stage === "cancelled") || row.stage === "completed" || row.stage === "failed") ? row : null;
        }, "the incident's Stop of the turn and of its export to settle");
        expect(task).toMatchObject({
          stage: "cancelled",
          cancelScope: "incident",
          cancelScopeRef: opened.incident.id,
          cancelRequestedBy: "operator:olivia",
          cancelReason: "incident: exports leak rows of other tenants",
        });
        const events = await t.database.prisma.ledgerEvent.findMany({ where: { taskId: turn.taskId, entityType: "task" }, orderBy: { seq: "asc" } });
        expect(events.map((e) => e.type)).not.toContain(LedgerEvent.taskCompleted);
        expect(events.map((e) => e.type)).toContain(LedgerEvent.taskCancelRequested);

        // The person's summary: who stopped it and why, and what became of the export (its partial rows kept).
        const summary = await getCancellationSummary(t.database, turn.taskId);
        expect(summary.scope).toEqual({ kind: "incident", ref: opened.incident.id });
        expect(summary.stopped_by).toEqual({ actor: "operator:olivia", reason: "incident: exports leak rows of other tenants" });
        expect(summary.user_message).toMatch(
          /^An incident that operator olivia opened stopped this request: “exports leak rows of other tenants”\. Stopped new work\./,
        );
        expect(summary.status).not.toBe("IN_PROGRESS");
        const exportCall = summary.tool_calls.find((c) => c.tool_name === "reports.export_report")!;
        expect(["stopped_partial_kept", "stopped", "discarded"]).toContain(exportCall.outcome.kind);
        // The console's row: stopped, never "completed".
        expect((await taskRowFacts(t.database, [task])).get(task.id)?.standing).toMatch(/^stopped/);
        const audit = await queryAudit(t.database, { taskId: task.id });
        expect(audit.tasks[0]).toMatchObject({
          stage: "cancelled",
          cancelRequestedBy: "operator:olivia",
          cancelReason: "incident: exports leak rows of other tenants",
        });
        // The reports service's witness log agrees: the export was cancelled there, after the rows it had written.
        const witnessed = witnessLog(demo.db, "reports");
        expect(witnessed.some((w) => w.action === "export_cancelled")).toBe(true);
        expect(witnessed.some((w) => w.action === "export_completed")).toBe(false);
      } finally {
        await requestLift(t.database, { incidentId: opened.incident.id, reason: "fixed", actor: "operator:olivia", actorId: "person:olivia" });
        await confirmLift(t.database, { incidentId: opened.incident.id, actor: "operator:pat", actorId: "person:pat" });
      }
    } finally {
      await stopSettler();
      await pool.stop();
    }
  }, 60_000);
});
