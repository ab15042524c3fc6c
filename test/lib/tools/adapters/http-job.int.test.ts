import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CancellationEngine } from "../../../../lib/cancellation/engine";
import type { EngineOptions } from "../../../../lib/cancellation/engine-options";
import { getCancellationSummary } from "../../../../lib/cancellation/get-cancellation-summary";
import { requestCancellation } from "../../../../lib/cancellation/steps/1-record-boundary";
import { createTask } from "../../../../lib/ledger/create-task";
import { scheduleWorkItem } from "../../../../lib/ledger/schedule-work-item";
import { startJobServer, type JobServer } from "../../../../lib/conformance/http-job-server";
import { createTestDatabase, type TestDatabase } from "../../../../lib/db/scratch-database";
import type { ToolDefinition } from "../../../../lib/tools/contract";
import { ToolRegistry } from "../../../../lib/tools/registry";
import { WorkerPool } from "../../../../lib/workers/worker-pool";
import { httpJobTool, type HttpJobToolOptions } from "../../../../lib/tools/adapters/http-job";

/**
 * The HTTP job adapter end to end: a real HTTP job service (node:http on 127.0.0.1, shaped like OpenAI's
 * background responses; lib/conformance/http-job-server.ts), a real WorkerPool running the adapter's tool, a real
 * CancellationEngine, on SQLite or PostgreSQL. Each scenario compares three records: the service's WITNESS LOG
 * (what the job really did), the LEDGER, and the SUMMARY the user is shown.
 */

const ENGINE = { verifyDelayMs: 50, settleTimeoutMs: 1_000, cancelAttempts: 3, cancelBackoffMs: 10, cancelTimeoutMs: 2_000 } satisfies Omit<
  EngineOptions,
  "registry"
>;

let t: TestDatabase;
let jobs: JobServer;
const stops: (() => Promise<void>)[] = [];

beforeEach(async () => {
  [t, jobs] = await Promise.all([createTestDatabase(), startJobServer()]);
});
afterEach(async () => {
  await new Promise((resolve) => setImmediate(resolve)); // let this test's commit notifications reach its own listeners
  for (const stop of stops.splice(0).reverse()) await stop();
  await jobs.close();
  await t.drop();
});

function jobTool(overrides: Partial<HttpJobToolOptions<unknown>> = {}) {
  return httpJobTool({
    name: "research.background_response",
    kind: "model_request",
    risk: "low",
    commitsEffect: false,
    startUrl: `${jobs.url}/jobs`,
    statusUrl: `${jobs.url}/jobs/{id}`,
    cancelUrl: `${jobs.url}/jobs/{id}/cancel`,
    lookupUrl: (key) => `${jobs.url}/jobs?idempotency_key=${encodeURIComponent(key)}`,
    pollMs: 20,
    requestTimeoutMs: 2_000,
    ...overrides,
  });
}

function boot(tools: ToolDefinition<any, any>[]) {
  const registry = new ToolRegistry();
  for (const tool of tools) registry.register(tool);
  const pool = new WorkerPool({ database: t.database, registry, concurrency: 4, pollMs: 20 });
  const engine = new CancellationEngine(t.database, { registry, ...ENGINE });
  engine.start(60_000); // maintenance passes are run by the tests themselves
  pool.start();
  stops.push(
    () => pool.stop(),
    () => engine.stop(),
  );
  return { registry, pool, engine };
}

const newTask = (title: string) => createTask(t.database, { title, ownerId: "alice", riskLevel: "low" }, "agent:test");
const schedule = (taskId: string, tool: ToolDefinition<any, any>, input: unknown) =>
  scheduleWorkItem(
    t.database,
    { taskId, kind: tool.kind, toolName: tool.name, mechanism: tool.mechanism, commitsEffect: tool.commitsEffect, intentVersion: 1, input },
    "agent:test",
  );
const item = (id: string) => t.database.prisma.workItem.findUniqueOrThrow({ where: { id } });
const events = (taskId: string, type?: string) =>
  t.database.prisma.ledgerEvent.findMany({ where: { taskId, ...(type ? { type } : {}) }, orderBy: { seq: "asc" } });
const reviews = (taskId: string) => t.database.prisma.reviewItem.findMany({ where: { taskId }, orderBy: { createdAt: "asc" } });
const steps = async (taskId: string, action: string) =>
  (await events(taskId, "cancellation.step")).filter((e) => (e.data as { action?: string }).action === action);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(probe: () => Promise<T> | T, what: string, timeoutMs = 5_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\nwitness log:\n${jobs.transcript()}`);
    await sleep(10);
  }
}

/** Starts a long job under a new task and waits until the service has written a few rows of it. */
async function runningJob(tool: ToolDefinition<any, any>, title: string) {
  const task = await newTask(title);
  const child = await schedule(task.id, tool, { steps: 1_000, stepMs: 20 });
  await waitFor(async () => (await item(child.id)).status === "submitted", "the job's submission to be recorded");
  const jobId = (await item(child.id)).operationId!;
  await waitFor(() => (jobs.job(jobId)?.output.length ?? 0) >= 3, "the job to write three rows");
  return { task, child, jobId };
}

/** Stop, as the user presses it, then wait for the cancellation the engine started on the boundary's commit. */
async function stop(engine: CancellationEngine, taskId: string) {
  await requestCancellation(t.database, { taskId, reason: "user pressed Stop", actor: "user:alice" });
  await new Promise((resolve) => setImmediate(resolve));
  await engine.run(taskId);
}

describe("HTTP job adapter: Stop against a real job service", () => {
  it("a job that is not stopped runs to completion and its output is the item's result", async () => {
    const tool = jobTool();
    boot([tool]);
    const task = await newTask("short research");
    const child = await schedule(task.id, tool, { steps: 3, stepMs: 10 });
    await waitFor(async () => (await item(child.id)).status === "completed", "the job to complete");
    const row = await item(child.id);
    expect(row.result).toEqual(["row 1", "row 2", "row 3"]);
    expect(jobs.jobs()).toHaveLength(1);
    expect(jobs.jobs()[0].idempotencyKey).toBe(row.idempotencyKey); // started with the work item's idempotency key
    expect(row.operationId).toBe(jobs.jobs()[0].id);
  });

  it("cancel acknowledged but the job completes anyway → the ledger says completed, the summary does not say cancelled", async () => {
    jobs.cancelMode = "ack_but_complete";
    jobs.completeAfterCancelMs = 0;
    const tool = jobTool();
    const { engine } = boot([tool]);
    const { task, child, jobId } = await runningJob(tool, "research that finishes regardless");
    await stop(engine, task.id);

    // witness: the cancel was acknowledged ("cancelled" in its answer) and the job completed all the same
    expect(jobs.count("cancel.acknowledged_only", jobId), jobs.transcript()).toBe(1);
    expect(jobs.job(jobId)?.status).toBe("completed");
    expect(jobs.count("job.cancelled")).toBe(0);

    // ledger: the acknowledgement was logged as no proof, the outcome re-queried, the item completed (with its result)
    const cancelSteps = await steps(task.id, "provider_cancel");
    expect(cancelSteps).toHaveLength(1);
    expect(cancelSteps[0].reason).toMatch(/not proof/);
    const reconciled = await steps(task.id, "reconcile");
    expect(reconciled.at(-1)?.reason).toMatch(/the service says: committed/);
    const row = await item(child.id);
    expect(row.status).toBe("completed");
    expect(Array.isArray(row.result) && row.result.length).toBe(1_000);
    expect((await events(task.id)).filter((e) => e.workItemId === child.id && e.toState === "cancelled")).toEqual([]);

    // summary: completed, never "cancelled" — it could not be stopped (the service acknowledged and carried on)
    const s = await getCancellationSummary(t.database, task.id);
    expect(s.cancelled_tool_calls.map((c) => c.cancellation_status)).toEqual(["UNRECOVERABLE"]);
    expect(s.tool_calls[0].outcome.label).toMatch(/^could not be stopped — the service acknowledged the cancel and carried on; it finished/);
    expect(s.completed_tool_calls).toEqual([{ tool_call_id: child.correlationId, tool_name: tool.name, status: "completed" }]);
    expect(s.status).not.toBe("CANCELLED");
    expect(s.user_message).not.toMatch(/stopped\./);
  });

  it("cancel acknowledged, the job still in progress when first inspected and completing later → uncertain, never cancelled, then completed on re-query", async () => {
    jobs.cancelMode = "ack_but_complete";
    jobs.completeAfterCancelMs = 1_500; // long enough that the engine's first inspect, even on a loaded machine, finds it in progress
    const tool = jobTool();
    const { engine } = boot([tool]);
    const { task, child, jobId } = await runningJob(tool, "research that finishes a little later");
    await stop(engine, task.id);

    // right after the Stop: the service still says in_progress — the item is not reported cancelled
    expect(jobs.job(jobId)?.status).toBe("in_progress");
    expect((await steps(task.id, "reconcile")).at(-1)?.reason).toMatch(/the service says: running/);
    expect(["uncertain", "cancelling"]).toContain((await item(child.id)).status);
    const before = await getCancellationSummary(t.database, task.id);
    expect(before.cancelled_tool_calls.filter((c) => c.cancellation_status !== "UNRECOVERABLE")).toEqual([]); // never "cancelled"
    expect(before.status).not.toBe("CANCELLED");

    // the job completes; the next maintenance pass asks again and records what the service says
    await waitFor(() => jobs.job(jobId)?.status === "completed", "the job to complete despite the cancel");
    await engine.maintain();
    expect((await item(child.id)).status).toBe("completed");
    const after = await getCancellationSummary(t.database, task.id);
    expect(after.cancelled_tool_calls.map((c) => c.cancellation_status)).toEqual(["UNRECOVERABLE"]); // could not be stopped; finished
    expect(after.completed_tool_calls.map((c) => c.tool_call_id)).toEqual([child.correlationId]);
    expect(after.status).not.toBe("CANCELLED");
  });

  it("cancel honoured → cancelled; the summary says CANCELLED and the job wrote nothing more", async () => {
    const tool = jobTool();
    const { engine } = boot([tool]);
    const { task, child, jobId } = await runningJob(tool, "research the user stops");
    await stop(engine, task.id);

    expect(jobs.count("job.cancelled", jobId), jobs.transcript()).toBe(1);
    const rows = jobs.job(jobId)!.output.length;
    await sleep(100);
    expect(jobs.job(jobId)!.output.length).toBe(rows);

    const row = await item(child.id);
    expect(row.status).toBe("cancelled");
    // A read-only job is not a side effect: its job id is kept on the item as the provider reference.
    expect(await t.database.prisma.sideEffect.count({ where: { workItemId: child.id } })).toBe(0);
    expect(row.operationId).toBe(jobId);
    expect(await reviews(task.id)).toEqual([]);
    const s = await getCancellationSummary(t.database, task.id);
    expect(s.status).toBe("CANCELLED");
    expect(s.cancelled_tool_calls).toEqual([
      { tool_call_id: child.correlationId, tool_name: tool.name, cancellation_status: "CANCELLED", partial_result: null, orphaned_resources: [] },
    ]);
    expect(s.user_message).toMatch(/One running step stopped\./);
  });

  it("written ahead: a job that holds a slot at the service declares it — the intent is in the ledger before the start, bound to the job's slot by the start's answer, released and verified after the Stop", async () => {
    const slotOf = (job: { id: string; status: string }) =>
      job.status === "queued" || job.status === "in_progress" ? [{ type: "job_slot", handle: job.id }] : [];
    const tool = jobTool({
      resources: {
        kinds: ["job_slot"],
        holds: slotOf,
        cleanup: async () => {}, // the service frees a job's slot when the job ends (the cancel ended it)
        verifyReleased: async (r) => {
          const j = jobs.job(r.handle);
          return !!j && slotOf(j).length === 0;
        },
      },
    });
    const { engine } = boot([tool]);
    const { task, child, jobId } = await runningJob(tool, "research with a slot, stopped");
    const order = (await events(task.id)).map((e) => e.type);
    expect(order.indexOf("resource.intended")).toBeLessThan(order.indexOf("work_item.submitted")); // written before the start left
    await stop(engine, task.id);

    expect((await item(child.id)).status).toBe("cancelled");
    const intent = await t.database.prisma.resourceIntent.findFirstOrThrow({ where: { workItemId: child.id } });
    const resources = await t.database.prisma.resource.findMany({ where: { workItemId: child.id } });
    expect(resources.map((r) => [r.type, r.handle, r.state])).toEqual([["job_slot", jobId, "released"]]);
    expect([intent.state, intent.resourceId]).toEqual(["bound", resources[0].id]);
    expect((await getCancellationSummary(t.database, task.id)).status).toBe("CANCELLED");
    // what inspect() tells the engine about a call whose answer was lost: what the job holds now
    expect(
      await tool.inspect!({
        workItemId: child.id,
        taskId: task.id,
        toolCallId: child.correlationId,
        idempotencyKey: child.idempotencyKey,
        operationId: jobId,
        providerRef: jobId,
        input: {},
      }),
    ).toMatchObject({ holds: [] });
  });

  it("cancel honoured with the rows written so far kept by the service → PARTIAL_RESULT when the tool vouches the rows are a complete subset", async () => {
    jobs.keepPartialOutput = true;
    const tool = jobTool({ partialComplete: (job) => Array.isArray(job.output) && job.output.every((r) => typeof r === "string" && r.startsWith("row ")) });
    const { engine } = boot([tool]);
    const { task, child, jobId } = await runningJob(tool, "export the user stops");
    await stop(engine, task.id);

    const kept = jobs.job(jobId)!.output;
    expect(jobs.job(jobId)!.status).toBe("cancelled");
    const row = await item(child.id);
    expect(row.status).toBe("partial");
    expect(row.partialResult).toEqual(kept);
    const s = await getCancellationSummary(t.database, task.id);
    expect(s.cancelled_tool_calls[0]).toMatchObject({ cancellation_status: "CANCELLED", partial_result: { marker: "PARTIAL_RESULT", value: kept } });
  });

  it("cancel endpoint down → retried, then uncertain with a review item; the summary does not say cancelled", async () => {
    jobs.cancelMode = "unavailable";
    const tool = jobTool();
    const { engine } = boot([tool]);
    const { task, child, jobId } = await runningJob(tool, "research with a broken cancel endpoint");
    await stop(engine, task.id);

    // witness: three attempts, each refused; the job is still running
    expect(jobs.requests(`POST /jobs/${jobId}/cancel`), jobs.transcript()).toBe(ENGINE.cancelAttempts);
    expect(jobs.count("cancel.refused", jobId)).toBe(ENGINE.cancelAttempts);
    expect(jobs.job(jobId)?.status).toBe("in_progress");

    // ledger
    const row = await item(child.id);
    expect(row.status).toBe("uncertain");
    expect(row.reconcileDeadline).not.toBeNull();
    const failed = await steps(task.id, "provider_cancel");
    expect(failed).toHaveLength(1);
    expect(failed[0].data).toMatchObject({ success: false });
    expect(failed[0].reason).toMatch(/after 3 attempts: the cancel endpoint answered 503/);
    expect((await reviews(task.id)).map((r) => ({ kind: r.kind, workItemId: r.workItemId, status: r.status }))).toEqual([
      { kind: "resolve_uncertain", workItemId: child.id, status: "open" },
    ]);

    // summary
    const s = await getCancellationSummary(t.database, task.id);
    expect(s.status).not.toBe("CANCELLED");
    expect(s.cancelled_tool_calls).toEqual([]);
    expect(s.uncertain_tool_calls).toEqual([
      { tool_call_id: child.correlationId, tool_name: tool.name, status: "uncertain", reconcile_deadline: row.reconcileDeadline!.toISOString() },
    ]);
    expect(s.user_message).toMatch(/not yet confirmed/);
  });

  it("cancel() is safe to repeat and inspect() answers unknown, with the reason, when the status endpoint is unreachable", async () => {
    const tool = jobTool();
    const { engine } = boot([tool]);
    const { task, child, jobId } = await runningJob(tool, "repeat the cancel");
    await stop(engine, task.id);
    const ref = {
      workItemId: child.id,
      taskId: task.id,
      toolCallId: child.correlationId,
      idempotencyKey: child.idempotencyKey,
      operationId: jobId,
      providerRef: jobId,
      input: null,
    };
    await tool.cancel!(ref);
    await tool.cancel!(ref);
    expect(jobs.count("job.cancelled", jobId)).toBe(1);
    expect(await tool.inspect!(ref)).toEqual({ status: "not_committed" });
    // found by idempotency key when no id was recorded
    expect(await tool.inspect!({ ...ref, operationId: null, providerRef: null })).toEqual({ status: "not_committed" });

    const unreachable = jobTool({ statusUrl: "http://127.0.0.1:1/jobs/{id}", requestTimeoutMs: 500 });
    const answer = await unreachable.inspect!(ref);
    expect(answer.status).toBe("unknown");
    expect(answer.status === "unknown" && answer.reason).toMatch(/unreachable/);
  });
});
