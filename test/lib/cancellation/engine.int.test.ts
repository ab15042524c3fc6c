import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AppError } from "../../../lib/errors";
import { checkpointWorkItem } from "../../../lib/ledger/checkpoint-work-item";
import { claimWorkItem } from "../../../lib/ledger/claim-work-item";
import { createTask } from "../../../lib/ledger/create-task";
import { heartbeatWorkItem } from "../../../lib/ledger/heartbeat-work-item";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { FakeService } from "../../support/fake-service";
import { crmCreateTool, remoteJobTool, reportTool, unstoppableExportTool } from "../../support/fake-tools";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";
import { StoppedError, type ToolDefinition } from "../../../lib/tools/contract";
import { ToolRegistry } from "../../../lib/tools/registry";
import { WorkerPool } from "../../../lib/workers/worker-pool";
import { CancellationEngine, escalateOverdue } from "../../../lib/cancellation/engine";
import { executeCancellation } from "../../../lib/cancellation/execute-cancellation";
import type { EngineOptions } from "../../../lib/cancellation/engine-options";
import { getCancellationSummary } from "../../../lib/cancellation/get-cancellation-summary";
import type { ActiveToolCall, CancellationPlan } from "../../../lib/cancellation/plan";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";
import { recordStatements } from "../../support/explain-plan";

/**
 * The cancellation engine end to end: real ledger (SQLite or PostgreSQL), real WorkerPool running tools
 * written against an in-memory external service (test/support/fake-service.ts). Every scenario checks three
 * independent records: the LEDGER (items, side effects, resources, review items, events), the SUMMARY the
 * user is shown, and the service's WITNESS LOG of what it actually did.
 */

const ENGINE = { verifyDelayMs: 50, settleTimeoutMs: 1_000, cancelAttempts: 3, cancelBackoffMs: 10 } satisfies Omit<EngineOptions, "registry">;
const actor = "agent:test";
const stopper = "user:alice";

let t: TestDatabase;
let svc: FakeService;
const stops: (() => Promise<void>)[] = [];

beforeEach(async () => {
  t = await createTestDatabase();
  svc = new FakeService();
});
afterEach(async () => {
  // Commit notifications are delivered on a later turn of the event loop (lib/events/bus.ts): let this
  // test's arrive while its engine and pool still listen, so none reaches the next test's engine.
  await notificationsDelivered();
  for (const stop of stops.splice(0).reverse()) await stop();
  svc.dispose();
  await t.drop();
});

/** A worker pool and a started cancellation engine for these tools (both stopped after the test). */
function boot(
  tools: ToolDefinition<any, any>[],
  options: { concurrency?: number; pollMs?: number; maintenanceMs?: number; engine?: boolean; settleTimeoutMs?: number } = {},
) {
  const registry = new ToolRegistry();
  for (const tool of tools) registry.register(tool);
  const pool = new WorkerPool({ database: t.database, registry, concurrency: options.concurrency ?? 8, pollMs: options.pollMs ?? 20 });
  const engine = new CancellationEngine(t.database, { registry, ...ENGINE, ...(options.settleTimeoutMs ? { settleTimeoutMs: options.settleTimeoutMs } : {}) });
  stops.push(() => pool.stop());
  if (options.engine !== false) {
    engine.start(options.maintenanceMs ?? 60_000);
    stops.push(() => engine.stop());
  }
  pool.start();
  return { registry, pool, engine };
}

const newTask = (title: string, riskLevel: "low" | "high" = "low") => createTask(t.database, { title, ownerId: "alice", riskLevel }, actor);
const schedule = (taskId: string, tool: ToolDefinition<any, any>, extra: { input?: unknown; intentVersion?: number } = {}) =>
  scheduleWorkItem(
    t.database,
    {
      taskId,
      kind: tool.kind,
      toolName: tool.name,
      mechanism: tool.mechanism,
      commitsEffect: tool.commitsEffect,
      intentVersion: extra.intentVersion ?? 1,
      input: extra.input,
    },
    actor,
  );
const stop = (taskId: string, reason = "user pressed Stop") => requestCancellation(t.database, { taskId, reason, actor: stopper });
const item = (id: string) => t.database.prisma.workItem.findUniqueOrThrow({ where: { id } });
const taskRow = (id: string) => t.database.prisma.task.findUniqueOrThrow({ where: { id } });
const events = (taskId: string, type?: string) =>
  t.database.prisma.ledgerEvent.findMany({ where: { taskId, ...(type ? { type } : {}) }, orderBy: { seq: "asc" } });
const reviews = (taskId: string) => t.database.prisma.reviewItem.findMany({ where: { taskId }, orderBy: { createdAt: "asc" } });
const summary = (taskId: string) => getCancellationSummary(t.database, taskId);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Resolves after the commit notifications already queued (lib/events/bus.ts delivers them on a later turn). */
const notificationsDelivered = () => new Promise((resolve) => setImmediate(resolve));
/**
 * Stop, as the user presses it, then wait for the cancellation the engine started on the boundary's commit
 * notification (joining it; started here only if the notification never came).
 */
/** The settling transaction's count of children still being stopped (step 8; not step 4's wait, which names a mechanism). */
const isSettlingBusyCount = (args: unknown) => {
  const where = (args as { where?: { status?: { in?: unknown }; mechanism?: unknown } }).where;
  return !!where && Array.isArray(where.status?.in) && where.mechanism === undefined;
};

async function stopAndWait(engine: CancellationEngine, taskId: string, reason?: string) {
  const result = await stop(taskId, reason);
  await notificationsDelivered();
  await engine.run(taskId);
  return result;
}

async function waitFor<T>(probe: () => Promise<T> | T, what: string, timeoutMs = 5_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\nwitness log:\n${svc.transcript()}`);
    await sleep(10);
  }
}
const statusIs = (id: string, ...statuses: string[]) =>
  waitFor(async () => statuses.includes((await item(id)).status), `work item ${id} to be ${statuses.join(" or ")}`);

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error("expected a rejection");
}

describe("the stop matrix, end to end", () => {
  it("cancel before dispatch: queued items never start, even with a worker pool polling at that moment", async () => {
    const work = reportTool(svc, { name: "s1.report", steps: 3, stepMs: 5, lock: false });
    let releaseBlocker!: () => void;
    const gate = new Promise<void>((resolve) => (releaseBlocker = resolve));
    const blocker: ToolDefinition = {
      name: "s1.blocker",
      kind: "local_worker",
      risk: "low",
      commitsEffect: false,
      mechanism: "none",
      run: async () => (await gate, "done"),
    };
    // One slot, polling every 5 ms. Another task's item holds the slot; it is freed right after the boundary,
    // so the pool claims again at exactly that moment (and keeps polling). The engine is not running yet:
    // the boundary alone must keep the queued items from starting (the claim's compare-and-set).
    const { engine } = boot([work, blocker], { concurrency: 1, pollMs: 5, engine: false });
    const other = await newTask("another user's request");
    const busy = await schedule(other.id, blocker);
    await statusIs(busy.id, "running");

    const task = await newTask("three reports");
    const queued = [await schedule(task.id, work), await schedule(task.id, work), await schedule(task.id, work)];
    const result = await stop(task.id);
    releaseBlocker();
    await statusIs(busy.id, "completed");
    await sleep(150); // ~30 more polls
    expect(await events(task.id, "work_item.claimed")).toEqual([]);
    for (const q of queued) expect((await item(q.id)).status).toBe("queued");
    // now the engine removes them from dispatch
    await engine.run(task.id);
    await sleep(50);
    const boundary = (await events(task.id, "task.cancel_requested"))[0];

    // the service never saw a call
    expect(svc.count(["work.started", "work.step"]), svc.transcript()).toBe(0);
    // the ledger: never claimed, never started, removed from dispatch after the boundary
    expect(result.kind).toBe("boundary");
    expect(await events(task.id, "work_item.claimed")).toEqual([]);
    for (const q of queued) expect(await item(q.id)).toMatchObject({ status: "cancelled", startedAt: null, attempt: 0, leaseOwner: null });
    const removed = await events(task.id, "work_item.removed_from_dispatch");
    expect(removed.map((e) => e.workItemId).sort()).toEqual(queued.map((q) => q.id).sort());
    for (const e of removed) {
      expect(e.seq).toBeGreaterThan(boundary.seq);
      expect(e.reason).toMatch(/never started/);
    }
    expect((await taskRow(task.id)).stage).toBe("cancelled");
    // the summary
    const s = await summary(task.id);
    expect(s.status).toBe("CANCELLED");
    expect(s.cancelled_tool_calls).toHaveLength(3);
    for (const c of s.cancelled_tool_calls)
      expect(c).toMatchObject({ tool_name: "s1.report", cancellation_status: "CANCELLED", partial_result: null, orphaned_resources: [] });
    expect(s.uncertain_tool_calls).toEqual([]);
    expect(s.completed_tool_calls).toEqual([]);
    expect(s.user_message).toMatch(/Three queued steps never started/);
  });

  describe("cancel during a cooperative tool call", () => {
    it("the tool sees its AbortSignal and stops; its lock is verified released; a complete partial result is kept (PARTIAL_RESULT)", async () => {
      const tool = reportTool(svc, { name: "s2.report", steps: 500, stepMs: 10, partial: { complete: true } });
      const { engine } = boot([tool]);
      const task = await newTask("quarterly report");
      const child = await schedule(task.id, tool);
      await svc.until((s) => s.count("work.step", child.correlationId) >= 3);
      await stopAndWait(engine, task.id);

      // ledger
      const steps = svc.witnessed("work.step", child.correlationId);
      const row = await item(child.id);
      expect(row.status, `the child ended ${row.status}; witness:\n${svc.transcript()}`).toBe("partial");
      expect(row).toMatchObject({ partialComplete: true, partialResult: { rows: steps.map((s) => s.detail.row) } });
      const handle = `report-lock:${child.correlationId}`;
      const [resource] = await t.database.prisma.resource.findMany({ where: { workItemId: child.id } });
      expect(resource).toMatchObject({ type: "lock", handle, state: "released" });
      expect(resource.verifiedAt).not.toBeNull();
      expect((await events(task.id, "resource.released")).map((e) => e.entityId)).toEqual([resource.id]);
      expect(await reviews(task.id)).toEqual([]);
      expect((await taskRow(task.id)).stage).toBe("cancelled");

      // witness: the tool stopped on its signal, did no step after that, and released its lock
      const [stopped] = svc.witnessed("work.stopped", child.correlationId);
      expect(stopped, svc.transcript()).toBeDefined();
      expect(stopped.detail.reason).toMatch(/cancellation was recorded/);
      expect(steps.length).toBeLessThan(500);
      expect(steps.every((s) => s.seq < stopped.seq)).toBe(true);
      expect(svc.count("work.finished")).toBe(0);
      expect(svc.count("lock.released", handle)).toBe(1);
      expect(svc.witnessed("lock.queried", handle).map((e) => e.detail.held)).toContain(false);
      expect(svc.heldLocks()).toEqual([]);

      // summary
      const s = await summary(task.id);
      expect(s.status).toBe("CANCELLED");
      expect(s.cancelled_tool_calls).toEqual([
        {
          tool_call_id: child.correlationId,
          tool_name: "s2.report",
          cancellation_status: "CANCELLED",
          partial_result: { marker: "PARTIAL_RESULT", value: { rows: steps.map((x) => x.detail.row) } },
          orphaned_resources: [],
        },
      ]);
      expect(s.user_message).toMatch(/One partial result kept/);
    });

    it("a partial result the tool does not vouch for (complete: false) is discarded: CANCELLED_INCOMPLETE", async () => {
      const tool = reportTool(svc, { name: "s2.draft", steps: 500, stepMs: 10, partial: { complete: false } });
      const { engine } = boot([tool]);
      const task = await newTask("draft invoice analysis");
      const child = await schedule(task.id, tool);
      await svc.until((s) => s.count("work.step", child.correlationId) >= 3);
      await stopAndWait(engine, task.id);

      const stopped = svc.witnessed("work.stopped", child.correlationId);
      expect(stopped, svc.transcript()).toHaveLength(1);
      expect(stopped[0].detail.reason).toMatch(/cancellation was recorded/); // the boundary itself, not a later engine step
      expect(svc.heldLocks()).toEqual([]);
      expect(await item(child.id)).toMatchObject({ status: "cancelled_incomplete" });
      const [resource] = await t.database.prisma.resource.findMany({ where: { workItemId: child.id } });
      expect(resource.state).toBe("released");
      expect(resource.verifiedAt).not.toBeNull();
      const s = await summary(task.id);
      expect(s.status).toBe("CANCELLED");
      expect(s.cancelled_tool_calls).toEqual([
        { tool_call_id: child.correlationId, tool_name: "s2.draft", cancellation_status: "CANCELLED_INCOMPLETE", partial_result: null, orphaned_resources: [] },
      ]);
      expect(s.user_message).toMatch(/One unfinished result discarded/);
    });

    it("a child that stops while the engine is cleaning up after another: its lock is still cleaned up and verified before the task is called cancelled", async () => {
      // The race: cleanup reads the resources while the slow child is still stopping (not yet its turn), the
      // child ends before the task is settled. The task must not be settled over the lock nobody cleaned up.
      let slowMayStop!: () => void;
      const slowStopped = new Promise<void>((resolve) => (slowMayStop = resolve));
      const lockTool = (name: string, onAbort: () => Promise<void>, onCleanup: () => Promise<void>): ToolDefinition<unknown, unknown> => ({
        name,
        kind: "local_worker",
        risk: "low",
        commitsEffect: false,
        mechanism: "abort_signal",
        async run(_input, ctx) {
          const handle = `lock:${ctx.toolCallId}`;
          svc.acquireLock(handle, name);
          await ctx.holdResource("lock", handle); // left for Stopline's cleanup: the tool never releases it itself
          await new Promise<void>((_, reject) => ctx.signal.addEventListener("abort", () => void onAbort().then(() => reject(ctx.signal.reason))));
        },
        async cleanup(resource) {
          await onCleanup();
          svc.releaseLock(resource.handle, "stopline:cleanup");
        },
        async verifyReleased(resource) {
          return !svc.isLockHeld(resource.handle, "stopline:verify");
        },
      });
      let slowId = "";
      const slow = lockTool(
        "s2.slow-to-stop",
        () => slowStopped,
        async () => {},
      );
      // the quick child's cleanup is where the slow one finally stops: between cleanup's read and settling
      const quick = lockTool(
        "s2.quick-to-stop",
        async () => {},
        async () => {
          slowMayStop();
          await statusIs(slowId, "cancelled", "cancelled_incomplete");
        },
      );
      const { engine } = boot([slow, quick], { settleTimeoutMs: 300 });
      const task = await newTask("two exports");
      const slowChild = await schedule(task.id, slow);
      slowId = slowChild.id;
      const quickChild = await schedule(task.id, quick);
      await waitFor(async () => (await t.database.prisma.resource.count({ where: { taskId: task.id } })) === 2, "both locks held");
      await stopAndWait(engine, task.id);

      expect((await taskRow(task.id)).stage).toBe("cancelled");
      const resources = await t.database.prisma.resource.findMany({ where: { taskId: task.id }, orderBy: { handle: "asc" } });
      expect(resources.map((r) => [r.handle, r.state, !!r.verifiedAt])).toEqual(
        [
          [`lock:${slowChild.correlationId}`, "released", true],
          [`lock:${quickChild.correlationId}`, "released", true],
        ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
      );
      expect(svc.heldLocks()).toEqual([]);
      const s = await summary(task.id);
      expect(s.status).toBe("CANCELLED");
      expect(s.orphaned_resources).toEqual([]);
      // the task was called cancelled only after the slow child's lock was verified released
      const [cancelled] = await events(task.id, "task.cancelled");
      const slowReleased = (await events(task.id, "resource.released")).find(
        (e) => e.entityId === resources.find((r) => r.handle.endsWith(slowChild.correlationId))!.id,
      )!;
      expect(slowReleased.seq).toBeLessThan(cancelled.seq);
    });

    it.skipIf(testEngine() !== "postgres")(
      "a child that ends between the settling transaction's two reads: the task is not called cancelled over its lock (PostgreSQL: each read is its own snapshot)",
      async () => {
        // SQLite needs no such test: the settling transaction holds the one write lock, so no child ends inside it.
        let mayStop!: () => void;
        const stopAllowed = new Promise<void>((resolve) => (mayStop = resolve));
        const tool: ToolDefinition<unknown, unknown> = {
          name: "s2.ends-while-settling",
          kind: "local_worker",
          risk: "low",
          commitsEffect: false,
          mechanism: "abort_signal",
          async run(_input, ctx) {
            const handle = `lock:${ctx.toolCallId}`;
            svc.acquireLock(handle, "s2.ends-while-settling");
            await ctx.holdResource("lock", handle); // left for Stopline's cleanup
            await new Promise<void>((_, reject) => ctx.signal.addEventListener("abort", () => void stopAllowed.then(() => reject(ctx.signal.reason))));
          },
          async cleanup(resource) {
            svc.releaseLock(resource.handle, "stopline:cleanup");
          },
          async verifyReleased(resource) {
            return !svc.isLockHeld(resource.handle, "stopline:verify");
          },
        };
        const registry = new ToolRegistry().register(tool);
        const pool = new WorkerPool({ database: t.database, registry, concurrency: 2, pollMs: 20 }).start();
        stops.push(() => pool.stop());
        let childId = "";
        let interleaved = false;
        // The engine's own database client, instrumented: at the settling transaction's FIRST read (whichever of the two
        // it is), the child ends — its report commits on another connection — before the second read runs.
        const between = async () => {
          if (interleaved || !childId) return;
          interleaved = true;
          mayStop();
          await statusIs(childId, "cancelled", "cancelled_incomplete");
        };
        const prisma = t.database.prisma.$extends({
          query: {
            workItem: {
              async count({ args, query }) {
                const n = await query(args);
                if (isSettlingBusyCount(args)) await between();
                return n;
              },
            },
            resource: {
              async count({ args, query }) {
                const n = await query(args);
                if ((args as { where?: { workItem?: unknown } }).where?.workItem) await between();
                return n;
              },
            },
          },
        }) as unknown as typeof t.database.prisma;
        const engine = new CancellationEngine({ ...t.database, prisma }, { registry, ...ENGINE, settleTimeoutMs: 200 });
        const task = await newTask("an export that stops late");
        const child = await schedule(task.id, tool);
        await waitFor(async () => (await t.database.prisma.resource.count({ where: { taskId: task.id } })) === 1, "the lock held");
        childId = child.id;
        await stopAndWait(engine, task.id);

        expect(interleaved).toBe(true);
        const [resource] = await t.database.prisma.resource.findMany({ where: { taskId: task.id } });
        await waitFor(async () => (await taskRow(task.id)).stage === "cancelled" || null, "the task to be cancelled");
        expect((await t.database.prisma.resource.findUniqueOrThrow({ where: { id: resource.id } })).state).toBe("released");
        expect(svc.heldLocks()).toEqual([]);
        const [cancelled] = await events(task.id, "task.cancelled");
        const [released] = await events(task.id, "resource.released");
        expect(released.seq).toBeLessThan(cancelled.seq);
      },
    );

    it("a resource verified released on the first re-query records one verification attempt", async () => {
      const tool = reportTool(svc, { name: "s2.attempts", steps: 500, stepMs: 10 });
      const { engine } = boot([tool]);
      const task = await newTask("report");
      const child = await schedule(task.id, tool);
      await svc.until((s) => s.count("work.step", child.correlationId) >= 1);
      await stopAndWait(engine, task.id);
      const handle = `report-lock:${child.correlationId}`;
      expect(svc.witnessed("lock.queried", handle).map((e) => e.detail.held)).toEqual([false]); // one verification query
      const [resource] = await t.database.prisma.resource.findMany({ where: { workItemId: child.id } });
      expect(resource.state).toBe("released");
      expect(resource.attempts).toBe(1);
    });
  });

  describe("cancel immediately after an external action was accepted", () => {
    it("inspect finds it committed: completed, effect committed, compensation proposed for review naming the record and version", async () => {
      svc.faults.acceptThenTimeout = true; // the service creates the record, but its answer never reaches the tool
      const crm = crmCreateTool(svc, { name: "s3.crm_create" });
      const { engine } = boot([crm]);
      const task = await newTask("add Ada to the CRM");
      const child = await schedule(task.id, crm, { input: { name: "Ada Lovelace" } });
      await statusIs(child.id, "submitted"); // ctx.submitted() recorded; the tool is waiting for the answer
      await stopAndWait(engine, task.id);

      const [created] = svc.witnessed("record.created");
      expect(created, svc.transcript()).toBeDefined();
      const recordId = created.subject;
      // witness: one submission, never re-submitted; the cancel came too late and said so; inspected by id
      expect(svc.count("operation.accepted")).toBe(1);
      expect(svc.count("operation.duplicate_submit")).toBe(0);
      expect(svc.count("record.created")).toBe(1);
      expect(svc.witnessed("operation.cancel_ignored").map((e) => e.detail.why)).toEqual(["already applied"]);
      expect(svc.count("operation.inspected")).toBeGreaterThanOrEqual(1);

      // ledger
      const row = await item(child.id);
      expect(row.status).toBe("completed");
      const [effect] = await t.database.prisma.sideEffect.findMany({ where: { workItemId: child.id } });
      expect(effect).toMatchObject({ outcome: "committed", externalRecordId: recordId, externalVersion: "1", reversible: true });
      const open = await reviews(task.id);
      expect(open).toHaveLength(1);
      expect(open[0]).toMatchObject({ kind: "approve_compensation", status: "open", sideEffectId: effect.id, workItemId: child.id });
      expect(open[0].proposal).toMatchObject({
        action: "compensate",
        tool: "s3.crm_create",
        target: recordId,
        expectedVersion: "1",
        operationId: row.operationId,
      });
      expect(open[0].subject).toContain(recordId);
      expect((await events(task.id, "work_item.reconciled")).length).toBe(1);

      // summary
      const s = await summary(task.id);
      expect(s.status).toBe("PARTIALLY_CANCELLED");
      expect(s.completed_tool_calls).toEqual([{ tool_call_id: child.correlationId, tool_name: "s3.crm_create", status: "completed" }]);
      expect(s.orphaned_side_effects).toHaveLength(1);
      expect(s.orphaned_side_effects[0].description).toContain(recordId);
      expect(s.cancelled_tool_calls).toEqual([]);
      expect(s.user_message).toMatch(/One action took effect; a person decides by \d\d:\d\d UTC whether to reverse it\./);
      expect(s.open_review_items).toBe(1);

      // the proposal binds the version the agent produced: after someone else edits the record, the
      // compensation refuses to overwrite it
      svc.editRecord(recordId, "staff:bob", { phone: "+44 20 7946 0000" });
      const result = await crm.compensate!(
        {
          id: effect.id,
          workItemId: child.id,
          operationId: effect.operationId,
          externalRecordId: recordId,
          externalVersion: "1",
          description: effect.description,
        },
        (open[0].proposal as { expectedVersion: string }).expectedVersion,
      );
      expect(result.status).toBe("conflict");
      expect(svc.count("record.archived")).toBe(0);
      expect(svc.record(recordId)).toMatchObject({ archived: false, version: 2 });
    });

    it("inspect finds it not committed: cancelled, effect not_committed, CANCELLED", async () => {
      svc.applyAfterMs = null; // accepted, not yet carried out
      const crm = crmCreateTool(svc, { name: "s3.crm_pending" });
      const { engine } = boot([crm]);
      const task = await newTask("add Grace to the CRM");
      const child = await schedule(task.id, crm, { input: { name: "Grace Hopper" } });
      await statusIs(child.id, "submitted");
      await stopAndWait(engine, task.id);

      expect(svc.count("operation.accepted")).toBe(1);
      expect(svc.count("operation.cancelled"), svc.transcript()).toBe(1);
      expect(svc.count("record.created")).toBe(0);
      expect(svc.records()).toEqual([]);
      expect(await item(child.id)).toMatchObject({ status: "cancelled" });
      const [effect] = await t.database.prisma.sideEffect.findMany({ where: { workItemId: child.id } });
      expect(effect.outcome).toBe("not_committed");
      expect(await reviews(task.id)).toEqual([]);
      expect((await taskRow(task.id)).stage).toBe("cancelled");
      const s = await summary(task.id);
      expect(s.status).toBe("CANCELLED");
      expect(s.cancelled_tool_calls).toEqual([
        { tool_call_id: child.correlationId, tool_name: "s3.crm_pending", cancellation_status: "CANCELLED", partial_result: null, orphaned_resources: [] },
      ]);
      expect(s.orphaned_side_effects).toEqual([]);
    });

    it("a cooperative (abort_signal) tool stopped after its action was accepted is reconciled by the engine run and its effect routed to review", async () => {
      svc.faults.acceptThenTimeout = true;
      const crm = crmCreateTool(svc, { name: "s3.crm_local", mechanism: "abort_signal" });
      const { engine } = boot([crm]);
      const task = await newTask("add Ada to the CRM (local client)");
      const child = await schedule(task.id, crm, { input: { name: "Ada Lovelace" } });
      await statusIs(child.id, "submitted");
      await stopAndWait(engine, task.id);

      const recordId = svc.witnessed("record.created")[0]?.subject;
      expect(recordId).toBeDefined();
      expect(svc.count("operation.inspected"), `the engine never asked the service\n${svc.transcript()}`).toBeGreaterThanOrEqual(1);
      expect((await item(child.id)).status).toBe("completed");
      const [effect] = await t.database.prisma.sideEffect.findMany({ where: { workItemId: child.id } });
      expect(effect).toMatchObject({ outcome: "committed", externalRecordId: recordId });
      expect((await reviews(task.id)).map((r) => r.kind)).toEqual(["approve_compensation"]);
      expect((await summary(task.id)).status).toBe("PARTIALLY_CANCELLED");
    });

    it("an action still pending at Stop (the service ignored the cancel) and committed later: the maintenance pass reconciles it AND asks a person about compensation", async () => {
      svc.applyAfterMs = null;
      svc.faults.ignoreCancellation = true;
      const crm = crmCreateTool(svc, { name: "s3.crm_late" });
      const { engine, pool } = boot([crm]);
      const task = await newTask("add Ada to the CRM (slow service)");
      const child = await schedule(task.id, crm, { input: { name: "Ada Lovelace" } });
      await statusIs(child.id, "submitted");
      await stopAndWait(engine, task.id);
      await waitFor(() => pool.running === 0, "the tool to stop waiting");

      // while the service has not decided, the ledger and the summary say so
      expect((await item(child.id)).status).toBe("uncertain");
      let s = await summary(task.id);
      expect(s.status).not.toBe("CANCELLED");
      expect(s.uncertain_tool_calls.map((u) => u.tool_call_id)).toEqual([child.correlationId]);
      expect(s.user_message).toMatch(/not yet confirmed/);

      // the service carries it out after all; the next maintenance pass asks it
      const opId = svc.witnessed("operation.accepted")[0].subject;
      svc.applyOperation(opId);
      await engine.maintain();

      expect((await item(child.id)).status).toBe("completed");
      const [effect] = await t.database.prisma.sideEffect.findMany({ where: { workItemId: child.id } });
      expect(effect.outcome).toBe("committed");
      s = await summary(task.id);
      expect(s.status).toBe("PARTIALLY_CANCELLED");
      // if the summary tells the user a person decides, a review item must exist for a person to act on
      expect(s.user_message).toMatch(/a person decides by \d\d:\d\d UTC whether to reverse it/);
      expect(s.open_review_items).toBeGreaterThan(0);
      const open = await reviews(task.id);
      expect(open.map((r) => r.kind)).toContain("approve_compensation");
    });
  });

  it("a slow child that ignores its AbortSignal (mechanism none): UNRECOVERABLE while it runs, watched to the end", async () => {
    const exporter = unstoppableExportTool(svc, { name: "s4.export", steps: 12, stepMs: 50 });
    const { engine } = boot([exporter], { maintenanceMs: 50 });
    const task = await newTask("export everything");
    const child = await schedule(task.id, exporter);
    await svc.until((s) => s.count("job.step") >= 2);
    await stopAndWait(engine, task.id);
    const stepsAtReport = svc.count("job.step");

    // while it runs
    expect(await item(child.id)).toMatchObject({ status: "unrecoverable" });
    expect(await events(task.id, "work_item.unrecoverable")).toHaveLength(1);
    expect(svc.count("job.finished")).toBe(0);
    let s = await summary(task.id);
    expect(s.status).toBe("CANCELLATION_FAILED");
    expect(s.cancelled_tool_calls).toEqual([
      { tool_call_id: child.correlationId, tool_name: "s4.export", cancellation_status: "UNRECOVERABLE", partial_result: null, orphaned_resources: [] },
    ]);
    expect(s.user_message).toMatch(/One step could not be stopped — it has no way to be stopped; it is still running\./);
    expect((await taskRow(task.id)).stage).toBe("cancel_requested");

    // watched to the end: the job really kept going, then the task settled (the maintenance pass looks at a
    // task at most every 5 s, engine.ts)
    await statusIs(child.id, "completed");
    await waitFor(async () => (await taskRow(task.id)).stage === "cancelled", "the task to settle after the unstoppable child ended", 10_000);
    expect(svc.count("job.finished")).toBe(1);
    expect(svc.count("job.step")).toBeGreaterThan(stepsAtReport);
    expect(svc.count("job.cancel_requested")).toBe(0); // nobody pretended to cancel it
    expect(await item(child.id)).toMatchObject({ status: "completed" });
    const [finished] = await events(task.id, "work_item.finished");
    const [settled] = await events(task.id, "task.cancelled");
    expect(settled.seq).toBeGreaterThan(finished.seq);
    s = await summary(task.id);
    // The verdict as settled stays (it could not be stopped and was still running then); how it ended is added after
    // it, never written over it (issue 20, item 4).
    expect(s.status).toBe("CANCELLATION_FAILED");
    expect(s.user_message).not.toMatch(/it is still running/);
    expect(s.user_message).toMatch(/One step could not be stopped — it has no way to be stopped; it was still running when the Stop settled\./);
    expect(s.user_message).toMatch(/Since the Stop: The step s4\.export: it ran (less than a second|\d+ s) past the Stop, then finished\./);
    expect(s.since_settlement.map((x) => x.tool_call_id)).toEqual([child.correlationId]);
    expect(s.cancelled_tool_calls.map((c) => c.cancellation_status)).toEqual(["UNRECOVERABLE"]);
    expect(s.completed_tool_calls.map((c) => c.tool_call_id)).toEqual([child.correlationId]);
  });

  it("a provider-side step whose service acknowledged the cancel, and that reports its stop a moment later: the pass waits for it, so the settled summary never calls it 'not stopped yet'", async () => {
    const tool: ToolDefinition<unknown, unknown> = {
      name: "s4.acknowledged",
      kind: "remote_tool",
      risk: "low",
      commitsEffect: false,
      mechanism: "provider_cancel",
      // The runner learns of the stop from its service a moment after the Stop (here 300 ms), then reports it.
      async run(_input, ctx) {
        await new Promise<never>((_, reject) =>
          ctx.signal.addEventListener("abort", () => setTimeout(() => reject(new StoppedError("the service stopped the job")), 300)),
        );
      },
      async cancel() {}, // acknowledged
      async inspect() {
        return { status: "not_committed" as const };
      },
    };
    const { engine } = boot([tool]);
    const task = await newTask("a remote job that stops when told");
    const child = await schedule(task.id, tool);
    await statusIs(child.id, "running");
    await stopAndWait(engine, task.id);

    // The pass is over: the summary is settled, and says what the step really did.
    const s = await summary(task.id);
    expect(s.status).toBe("CANCELLED");
    expect(s.settled_at).not.toBeNull();
    expect(s.tool_calls.map((c) => c.outcome.kind)).toEqual(["stopped"]);
    const [settled] = await events(task.id, "cancellation.settled");
    const finished = (await events(task.id, "work_item.finished")).find((e) => e.workItemId === child.id)!;
    expect(finished.seq).toBeLessThan(settled.seq);
  });

  describe("an unavailable cancellation endpoint", () => {
    it("retried N times, then uncertain with a resolve_uncertain review; the summary does not claim CANCELLED", async () => {
      svc.faults.cancelUnavailable = true;
      const job = remoteJobTool(svc, { name: "s5.response", steps: 1_000, stepMs: 20 });
      const { engine } = boot([job]);
      const task = await newTask("background research");
      const child = await schedule(task.id, job);
      await statusIs(child.id, "submitted");
      await stopAndWait(engine, task.id);

      const jobId = svc.witnessed("job.started")[0].subject;
      // witness: three attempts, each refused; the job is still running out there
      expect(svc.count("job.cancel_requested", jobId), svc.transcript()).toBe(ENGINE.cancelAttempts);
      expect(svc.count("endpoint.unavailable", jobId)).toBe(ENGINE.cancelAttempts);
      expect(svc.count("job.cancelled")).toBe(0);
      expect(svc.peekJob(jobId)?.status).toBe("running");

      // ledger
      const row = await item(child.id);
      expect(row.status).toBe("uncertain");
      expect(row.reconcileDeadline).not.toBeNull();
      const open = await reviews(task.id);
      expect(open.map((r) => ({ kind: r.kind, workItemId: r.workItemId, status: r.status }))).toEqual([
        { kind: "resolve_uncertain", workItemId: child.id, status: "open" },
      ]);
      const failedCancel = (await events(task.id, "cancellation.step")).filter((e) => (e.data as { action?: string }).action === "provider_cancel");
      expect(failedCancel).toHaveLength(1);
      expect(failedCancel[0].data).toMatchObject({ success: false });
      expect(failedCancel[0].reason).toMatch(/after 3 attempts/);

      // summary
      const s = await summary(task.id);
      expect(s.status).not.toBe("CANCELLED");
      expect(s.uncertain_tool_calls).toEqual([
        { tool_call_id: child.correlationId, tool_name: "s5.response", status: "uncertain", reconcile_deadline: row.reconcileDeadline!.toISOString() },
      ]);
      expect(s.cancelled_tool_calls).toEqual([]);
      expect(s.user_message).toMatch(/not yet confirmed/);
      expect(s.user_message).not.toMatch(/step stopped/);
    });

    it("a provider_cancel tool that honours its AbortSignal but never called ctx.submitted is not reported cancelled while its remote job still runs", async () => {
      svc.faults.cancelUnavailable = true;
      const job = remoteJobTool(svc, { name: "s5.unrecorded", steps: 1_000, stepMs: 20, recordSubmission: false });
      const { engine } = boot([job]);
      const task = await newTask("background research (no submission record)");
      const child = await schedule(task.id, job);
      await svc.until((s) => s.count("job.step") >= 1);
      await stopAndWait(engine, task.id);

      const jobId = svc.witnessed("job.started")[0].subject;
      expect(svc.peekJob(jobId)?.status).toBe("running"); // the remote work was never stopped
      // Stopline must at least have tried the provider's cancel endpoint …
      expect(svc.count("job.cancel_requested", jobId), svc.transcript()).toBeGreaterThanOrEqual(1);
      // … and must not report a child CANCELLED whose remote job is still running (invariant 4)
      expect((await item(child.id)).status).not.toBe("cancelled");
      expect((await summary(task.id)).status).not.toBe("CANCELLED");
    });
  });

  it("a resource that stays held after cleanup and one retry: ORPHANED, routed to review, and the message does not claim cleanup", async () => {
    svc.faults.neverReleaseLock = true;
    const tool = reportTool(svc, { name: "s6.report", steps: 500, stepMs: 10 });
    const { engine } = boot([tool]);
    const task = await newTask("report holding a lock");
    const child = await schedule(task.id, tool);
    await svc.until((s) => s.count("work.step", child.correlationId) >= 1);
    await stopAndWait(engine, task.id);
    const handle = `report-lock:${child.correlationId}`;

    // witness: the lock is still held; Stopline tried to release it twice and re-queried twice
    expect(svc.heldLocks()).toEqual([handle]);
    expect(svc.count("lock.release_ignored", handle)).toBe(3); // the tool's own release + cleanup + one retry
    expect(svc.witnessed("lock.release_ignored", handle).filter((e) => e.by === "stopline:cleanup")).toHaveLength(2);
    expect(svc.witnessed("lock.queried", handle).map((e) => e.detail.held)).toEqual([true, true]);

    // ledger
    expect((await item(child.id)).status).toBe("cancelled");
    const [resource] = await t.database.prisma.resource.findMany({ where: { workItemId: child.id } });
    expect(resource).toMatchObject({ state: "orphaned", attempts: 2 });
    expect(resource.verifiedAt).not.toBeNull();
    expect((await events(task.id, "resource.orphaned")).map((e) => e.entityId)).toEqual([resource.id]);
    expect(await events(task.id, "resource.released")).toEqual([]);
    const open = await reviews(task.id);
    expect(open.map((r) => ({ kind: r.kind, resourceId: r.resourceId, status: r.status }))).toEqual([
      { kind: "orphaned_resource", resourceId: resource.id, status: "open" },
    ]);

    // summary
    const s = await summary(task.id);
    expect(s.status).toBe("PARTIALLY_CANCELLED");
    expect(s.cancelled_tool_calls).toEqual([
      {
        tool_call_id: child.correlationId,
        tool_name: "s6.report",
        cancellation_status: "CANCELLED",
        partial_result: null,
        orphaned_resources: [`lock:${handle}`],
      },
    ]);
    expect(s.user_message).toMatch(/could not be released/);
    expect(s.user_message.replace(/could not be released/g, "")).not.toMatch(/released|cleaned|cleanup complete|all clear/i);
  });

  describe("duplicate and concurrent Stop requests", () => {
    async function twoRunningOneQueued(name: string, concurrency = 2) {
      const job = remoteJobTool(svc, { name, steps: 1_000, stepMs: 20 });
      const booted = boot([job], { concurrency });
      const task = await newTask("three research jobs");
      const children = [await schedule(task.id, job), await schedule(task.id, job), await schedule(task.id, job)];
      await statusIs(children[0].id, "submitted");
      await statusIs(children[1].id, "submitted");
      expect((await item(children[2].id)).status).toBe("queued"); // the pool runs two at a time
      return { ...booted, task, children };
    }

    async function expectOneSetOfEffects(taskId: string, children: { id: string; correlationId: string }[]) {
      // one boundary, one plan
      expect(await events(taskId, "task.cancel_requested")).toHaveLength(1);
      expect((await taskRow(taskId)).intentVersion).toBe(2);
      expect(await events(taskId, "cancellation.planned")).toHaveLength(1);
      // the service: two jobs started, each cancelled exactly once; the queued one never started
      const jobs = svc.witnessed("job.started").map((e) => e.subject);
      expect(jobs).toHaveLength(2);
      for (const id of jobs) expect(svc.count("job.cancel_requested", id), svc.transcript()).toBe(1);
      expect(svc.count("job.cancelled")).toBe(2);
      // one set of effects: one outcome per child, one side effect per submission, no reviews
      for (const c of children) {
        const row = await item(c.id);
        expect(row.status).toBe("cancelled");
        const moves = (await events(taskId)).filter((e) => e.workItemId === c.id && e.toState === "cancelled");
        expect(moves).toHaveLength(1);
      }
      expect(await events(taskId, "work_item.removed_from_dispatch")).toHaveLength(1);
      // (read-only jobs: a side effect row, if any is kept for them, is at most one per child and never committed)
      const effects = await t.database.prisma.sideEffect.findMany({ where: { taskId } });
      expect(new Set(effects.map((e) => e.workItemId)).size).toBe(effects.length);
      expect(effects.filter((e) => e.outcome !== "not_committed")).toEqual([]);
      expect(await reviews(taskId)).toEqual([]);
      expect((await events(taskId, "task.cancelled")).length).toBe(1);
      const s = await summary(taskId);
      expect(s.status).toBe("CANCELLED");
      expect(s.user_message).toMatch(/One queued step never started\. Two running steps stopped\./);
    }

    it("several Stops and engine runs at once: one boundary, one plan, one provider cancel per child, one set of effects", async () => {
      const { engine, task, children } = await twoRunningOneQueued("s7.job");
      const results = await Promise.all([
        stop(task.id),
        stop(task.id, "again"),
        stop(task.id, "and again"),
        stop(task.id),
        stop(task.id),
        engine.run(task.id),
        engine.run(task.id),
        engine.run(task.id),
      ]);
      await notificationsDelivered();
      await engine.run(task.id);
      await waitFor(async () => (await taskRow(task.id)).stage === "cancelled", "the task to settle");

      const boundaries = results.slice(0, 5).map((r) => r as Awaited<ReturnType<typeof stop>>);
      expect(boundaries.every((b) => b.kind === "boundary")).toBe(true);
      const b = boundaries.map((r) => (r.kind === "boundary" ? r.boundary : null)!);
      expect(new Set(b.map((x) => x.intentVersion))).toEqual(new Set([2]));
      expect(new Set(b.map((x) => x.cancelRequestedAt.toISOString())).size).toBe(1);
      const first = b.filter((x) => !x.alreadyRequested);
      expect(first).toHaveLength(1);
      for (const x of b) expect(x.reason).toBe(first[0].reason); // every answer is the first cancellation
      await expectOneSetOfEffects(task.id, children);

      // a late Stop, after everything settled, returns the first cancellation and changes nothing
      const before = (await events(task.id)).length;
      const late = await stop(task.id, "late");
      expect(late).toMatchObject({ kind: "boundary", boundary: { alreadyRequested: true, intentVersion: 2, reason: first[0].reason } });
      await engine.run(task.id);
      expect((await events(task.id)).length).toBe(before);
      expect(svc.count("job.cancel_requested")).toBe(2);
    });

    it("two app instances (two engines on one database) both see the boundary: still one provider cancel per child", async () => {
      const { registry, engine, task, children } = await twoRunningOneQueued("s7.job2");
      const second = new CancellationEngine(t.database, { registry, ...ENGINE }).start(60_000);
      stops.push(() => second.stop());
      await Promise.all([stop(task.id), stop(task.id)]);
      await notificationsDelivered();
      await Promise.all([engine.run(task.id), second.run(task.id)]);
      await waitFor(async () => (await taskRow(task.id)).stage === "cancelled", "the task to settle");
      await expectOneSetOfEffects(task.id, children);
    });
  });

  it("an engine run leaves no lease behind: a quiet Stop's settling statement ends it, a full pass releases it; a second engine then finds nothing to claim", async () => {
    const job = remoteJobTool(svc, { name: "lease.job", steps: 1_000, stepMs: 20 });
    const { engine, registry } = boot([job]);
    const quiet = await newTask("nothing in flight");
    const busy = await newTask("one job in flight");
    const running = await schedule(busy.id, job);
    await statusIs(running.id, "submitted");
    await Promise.all([stop(quiet.id), stop(busy.id)]);
    await notificationsDelivered();
    await Promise.all([engine.run(quiet.id), engine.run(busy.id)]);
    await waitFor(async () => (await taskRow(quiet.id)).settledAt !== null && (await taskRow(busy.id)).settledAt !== null, "both tasks to settle");
    for (const id of [quiet.id, busy.id]) {
      const row = await taskRow(id);
      expect(row).toMatchObject({ stage: "cancelled", engineOwner: null, engineLeaseExpiresAt: null });
    }
    expect(await events(quiet.id, "cancellation.settled")).toHaveLength(1);
    const second = new CancellationEngine(t.database, { registry, ...ENGINE });
    const before = (await events(busy.id)).length;
    await second.run(busy.id);
    expect((await events(busy.id)).length).toBe(before);
  });

  it("children that stop on their signals a moment after the Stop: the pass ends as a Stop with nothing in flight does — on PostgreSQL one settling statement — with the same facts and summary", async () => {
    // Stops 100 ms after its signal (a flush before it gives up): the pass finds it in flight and waits for it.
    const slow: ToolDefinition<unknown, never> = {
      name: "quiet.slow_stop",
      kind: "local_worker",
      risk: "low",
      commitsEffect: false,
      mechanism: "abort_signal",
      run: (_input, ctx) =>
        new Promise((_, reject) => {
          svc.note("work.started", "worker", ctx.toolCallId);
          const stopped = () => {
            svc.note("work.stopped", "worker", ctx.toolCallId);
            reject(ctx.signal.reason);
          };
          ctx.signal.addEventListener("abort", () => setTimeout(stopped, 100), { once: true });
        }),
    };
    const { engine } = boot([slow]);
    const task = await newTask("two children that take a moment to stop");
    const children = [await schedule(task.id, slow), await schedule(task.id, slow)];
    for (const child of children) await statusIs(child.id, "running");
    const sent = recordStatements(t.database.pg);
    try {
      await stopAndWait(engine, task.id);
    } finally {
      sent.stop();
    }
    // The facts a full pass writes: each child cancelled, the task cancelled and settled, its lease ended, in order.
    for (const child of children) expect((await item(child.id)).status).toBe("cancelled");
    const row = await taskRow(task.id);
    expect(row).toMatchObject({ stage: "cancelled", engineOwner: null, engineLeaseExpiresAt: null });
    expect(row.settledAt).not.toBeNull();
    const taskEvents = (await events(task.id)).filter((e) => e.workItemId === null).map((e) => e.type);
    expect(taskEvents).toEqual(["task.created", "task.cancel_requested", "cancellation.planned", "task.cancelled", "cancellation.settled"]);
    if (t.database.pg) expect(sent.names).toContain("stopline_settle_quietly_batch"); // the one settling statement, after the wait
    const s = await summary(task.id);
    expect(s.status).toBe("CANCELLED");
    expect(s.cancelled_tool_calls.map((c) => c.cancellation_status)).toEqual(["CANCELLED", "CANCELLED"]);
    expect(svc.count(["work.stopped"])).toBe(2);
  });

  describe("an old worker waking after a newer intent replaced the task", () => {
    it("its checkpoint fails even though the task is active again, and its action never reaches the service", async () => {
      const crm = crmCreateTool(svc, { name: "s8.crm_create" });
      const task = await newTask("order two chairs");
      const old = await schedule(task.id, crm, { input: { name: "two chairs" } });
      const stale = await schedule(task.id, crm, { input: { name: "two chairs, later" } });
      const claimed = await claimWorkItem(t.database, { workerId: "old-worker", toolNames: [crm.name], leaseMs: 60_000 });
      expect(claimed?.id).toBe(old.id);

      // The worker sleeps. Meanwhile the user changes the request: the task moves to intent version 2 and
      // stays active. (There is no domain API for "new intent" besides the cancellation boundary; the bump
      // is written here as the compare-and-set such an API would make.)
      const bumped = await t.database.prisma.task.updateMany({
        where: { id: task.id, intentVersion: 1, stage: "active" },
        data: { intentVersion: { increment: 1 }, rowVersion: { increment: 1 } },
      });
      expect(bumped.count).toBe(1);
      expect(await taskRow(task.id)).toMatchObject({ stage: "active", intentVersion: 2, cancelRequestedAt: null });

      // The old worker wakes and runs the commit path of its tool: checkpoint, then submit.
      const commit = async () => {
        await checkpointWorkItem(t.database, { workItemId: claimed!.id, leaseToken: claimed!.leaseToken!, actor: "worker:old-worker" });
        svc.submitOperation({ idempotencyKey: claimed!.idempotencyKey, kind: "order", payload: claimed!.input, by: "worker:old-worker" });
      };
      const refused = await rejection(commit());
      expect(refused.code).toBe("stale_intent");
      expect(svc.count(["operation.accepted", "record.created"]), svc.transcript()).toBe(0);
      const [rejected] = (await events(task.id, "checkpoint.rejected")).filter((e) => e.workItemId === old.id);
      expect(rejected.data).toMatchObject({ code: "stale_intent", preparedIntentVersion: 1, taskIntentVersion: 2 });
      expect((await events(task.id, "checkpoint.passed")).filter((e) => e.workItemId === old.id)).toEqual([]);
      // its heartbeat also tells it to stop
      expect(await heartbeatWorkItem(t.database, { workItemId: claimed!.id, leaseToken: claimed!.leaseToken!, actor: "worker:old-worker" })).toMatchObject({
        cancelRequested: true,
        intentVersion: 2,
      });

      // a queued item prepared under the old intent is never claimed; one prepared under the new intent is, and may commit
      const fresh = await schedule(task.id, crm, { input: { name: "three chairs" }, intentVersion: 2 });
      const next = await claimWorkItem(t.database, { workerId: "new-worker", toolNames: [crm.name] });
      expect(next?.id).toBe(fresh.id);
      expect(await claimWorkItem(t.database, { workerId: "new-worker", toolNames: [crm.name] })).toBeNull();
      expect((await item(stale.id)).status).toBe("queued");
      await expect(checkpointWorkItem(t.database, { workItemId: next!.id, leaseToken: next!.leaseToken!, actor: "worker:new-worker" })).resolves.toMatchObject({
        passed: true,
        intentVersion: 2,
      });
    });
  });

  it("escalation: a review item past its deadline is escalated with a review_item.escalated event, once", async () => {
    const previous = process.env.STOPLINE_REVIEW_DEADLINE_LOW_MS;
    process.env.STOPLINE_REVIEW_DEADLINE_LOW_MS = "300";
    try {
      svc.faults.cancelUnavailable = true;
      const job = remoteJobTool(svc, { name: "s9.response", steps: 1_000, stepMs: 20 });
      const { engine } = boot([job]);
      const task = await newTask("background research");
      const child = await schedule(task.id, job);
      await statusIs(child.id, "submitted");
      await stopAndWait(engine, task.id);
      const [review] = await reviews(task.id);
      expect(review).toMatchObject({ kind: "resolve_uncertain", status: "open" });
      expect(await escalateOverdue(t.database)).toEqual([]); // not due yet

      await sleep(Math.max(0, review.deadline.getTime() - Date.now()) + 50);
      await engine.maintain();

      expect((await t.database.prisma.reviewItem.findUniqueOrThrow({ where: { id: review.id } })).status).toBe("escalated");
      const escalated = await events(task.id, "review_item.escalated");
      expect(escalated).toHaveLength(1);
      expect(escalated[0]).toMatchObject({
        entityId: review.id,
        fromState: "open",
        toState: "escalated",
        actor: "system:cancellation-engine",
        data: { kind: "resolve_uncertain" },
      });
      expect(escalated[0].reason).toMatch(/deadline .* passed/);
      // once: a second pass escalates nothing more, and the item still counts as open for the user
      expect(await escalateOverdue(t.database)).toEqual([]);
      expect(await events(task.id, "review_item.escalated")).toHaveLength(1);
      expect((await summary(task.id)).open_review_items).toBe(1);
    } finally {
      if (previous === undefined) delete process.env.STOPLINE_REVIEW_DEADLINE_LOW_MS;
      else process.env.STOPLINE_REVIEW_DEADLINE_LOW_MS = previous;
    }
  });

  describe("a model planner advises; the application decides", () => {
    async function runningAndQueued(name: string) {
      const tool = reportTool(svc, { name, steps: 500, stepMs: 10, lock: false });
      const booted = boot([tool], { concurrency: 1, engine: false });
      const task = await newTask("two reports");
      const running = await schedule(task.id, tool);
      const queued = await schedule(task.id, tool);
      await svc.until((s) => s.count("work.step", running.correlationId) >= 1);
      expect((await item(queued.id)).status).toBe("queued");
      return { ...booted, task, running, queued };
    }

    it('a valid model plan is recorded with source "model" and followed', async () => {
      const { registry, task, running, queued } = await runningAndQueued("s10.valid");
      const seen: ActiveToolCall[][] = [];
      const planner = async (calls: ActiveToolCall[]): Promise<CancellationPlan> => {
        seen.push(calls);
        return {
          source: "model",
          steps: calls.map((c) => ({
            tool_call_id: c.id,
            action: c.status === "queued" ? "abort" : "await_partial",
            cleanup_steps: ["release the report lock"],
            user_message: c.status === "queued" ? "The second report will not start." : "Stopping the first report.",
          })),
        };
      };
      await stop(task.id);
      await executeCancellation(t.database, task.id, { registry, ...ENGINE, planner });

      expect(seen).toHaveLength(1);
      expect(seen[0].map((c) => [c.id, c.status]).sort()).toEqual(
        [
          [running.id, expect.any(String)],
          [queued.id, "queued"],
        ].sort(),
      );
      const planned = await events(task.id, "cancellation.planned");
      expect(planned).toHaveLength(1);
      const plan = planned[0].data as unknown as CancellationPlan;
      expect(plan.source).toBe("model");
      expect(plan.fallbackReason).toBeUndefined();
      expect(Object.fromEntries(plan.steps.map((s) => [s.tool_call_id, s.action]))).toEqual({ [running.id]: "await_partial", [queued.id]: "abort" });
      expect(await item(queued.id)).toMatchObject({ status: "cancelled", startedAt: null });
      expect(svc.count("work.started", queued.correlationId)).toBe(0);
      expect((await summary(task.id)).status).toBe("CANCELLED");
    });

    it("an invalid model plan (keeps a queued item: noop) is replaced by the rule-based plan with a fallbackReason; the queued item is still cancelled", async () => {
      const { registry, task, running, queued } = await runningAndQueued("s10.invalid");
      const planner = async (calls: ActiveToolCall[]): Promise<CancellationPlan> => ({
        source: "model",
        steps: calls.map((c) => ({
          tool_call_id: c.id,
          action: c.status === "queued" ? "noop" : "abort",
          cleanup_steps: [],
          user_message: "Let the queued one run.",
        })),
      });
      await stop(task.id);
      await executeCancellation(t.database, task.id, { registry, ...ENGINE, planner });

      const planned = await events(task.id, "cancellation.planned");
      expect(planned).toHaveLength(1);
      const plan = planned[0].data as unknown as CancellationPlan;
      expect(plan.source).toBe("rules");
      expect(plan.fallbackReason).toMatch(/invalid plan/);
      expect(plan.fallbackReason).toMatch(/"noop" is not allowed/);
      expect(planned[0].reason).toBe(plan.fallbackReason);
      expect(Object.fromEntries(plan.steps.map((s) => [s.tool_call_id, s.action]))).toEqual({ [running.id]: "abort", [queued.id]: "abort" });
      expect(await item(queued.id)).toMatchObject({ status: "cancelled", startedAt: null });
      await sleep(100); // the pool keeps polling: the queued item still never starts
      expect(svc.count("work.started", queued.correlationId), svc.transcript()).toBe(0);
      expect((await item(running.id)).status).toBe("cancelled");
    });
  });
});
