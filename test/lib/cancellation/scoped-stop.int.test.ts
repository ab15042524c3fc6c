import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AppError } from "../../../lib/errors";
import { checkpointWorkItem } from "../../../lib/ledger/checkpoint-work-item";
import { claimWorkItem } from "../../../lib/ledger/claim-work-item";
import { createTask } from "../../../lib/ledger/create-task";
import { finishTask, TaskEnding } from "../../../lib/ledger/finish-task";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { LedgerEvent } from "../../../lib/ledger/events";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";
import type { ToolDefinition } from "../../../lib/tools/contract";
import { ToolRegistry } from "../../../lib/tools/registry";
import { WorkerPool } from "../../../lib/workers/worker-pool";
import { CancellationEngine } from "../../../lib/cancellation/engine";
import { getCancellationSummary, getChildCancellationSummary } from "../../../lib/cancellation/get-cancellation-summary";
import { requestChildCancellation } from "../../../lib/cancellation/request-child-cancellation";
import { stopMany } from "../../../lib/cancellation/stop-many";

/**
 * Scoped Stop (issue 13), end to end on the real ledger (SQLite or PostgreSQL) with a real worker pool and engine:
 * a Stop of one child stops it and its descendants — same boundary rules at the child's scope — while its
 * siblings go on and complete; a Stop of a conversation (or a person) stops every one of its tasks, each through
 * the engine's ordinary pass, and each summary names the scope.
 */

const ENGINE = { verifyDelayMs: 20, settleTimeoutMs: 2_000, cancelAttempts: 2, cancelBackoffMs: 10 };
const actor = "agent:scoped";
let t: TestDatabase;
const stops: (() => Promise<void>)[] = [];
beforeEach(async () => {
  t = await createTestDatabase();
});
afterEach(async () => {
  await new Promise((r) => setImmediate(r));
  for (const stop of stops.splice(0).reverse()) await stop();
  await t.drop();
});

/** Local code that runs until its gate opens or its AbortSignal fires (then it stops, cooperatively). */
function gatedTool(name: string) {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const started: string[] = [];
  const tool: ToolDefinition = {
    name,
    kind: "local_worker",
    risk: "low",
    commitsEffect: false,
    mechanism: "abort_signal",
    run: async (_input, ctx) => {
      started.push(ctx.workItemId);
      await new Promise<void>((resolve, reject) => {
        void gate.then(resolve);
        ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true });
      });
      return { done: name };
    },
  };
  return { tool, open, started };
}

function boot(tools: ToolDefinition[]) {
  const registry = new ToolRegistry();
  for (const tool of tools) registry.register(tool);
  const pool = new WorkerPool({ database: t.database, registry, concurrency: 8, pollMs: 15 }).start();
  const engine = new CancellationEngine(t.database, { registry, ...ENGINE }).start(60_000);
  stops.push(
    () => pool.stop(),
    () => engine.stop(),
  );
  return { registry, engine };
}

const schedule = (taskId: string, tool: Pick<ToolDefinition, "name" | "kind" | "mechanism" | "commitsEffect">, parentWorkItemId?: string) =>
  scheduleWorkItem(
    t.database,
    { taskId, kind: tool.kind, toolName: tool.name, mechanism: tool.mechanism, commitsEffect: tool.commitsEffect, intentVersion: 1, parentWorkItemId },
    actor,
  );
const item = (id: string) => t.database.prisma.workItem.findUniqueOrThrow({ where: { id } });
async function waitFor<T>(probe: () => Promise<T>, what: string, ms = 8_000): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 15));
  }
}
async function refusal(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error("expected a refusal");
}

describe(`scoped Stop (${testEngine()})`, () => {
  it("a child stopped: it and its queued descendant end, its siblings run on and complete; nothing new starts under it", async () => {
    const stopped = gatedTool("scoped.stopped");
    const sibling = gatedTool("scoped.sibling");
    // A tool nobody serves: its child stays queued until the Stop removes it.
    const unserved = { name: "scoped.unserved", kind: "local_worker", mechanism: "abort_signal", commitsEffect: false } as const;
    const { engine } = boot([stopped.tool, sibling.tool]);
    const task = await createTask(t.database, { title: "scoped: one child", ownerId: "alice" }, actor);
    const target = await schedule(task.id, stopped.tool);
    const descendant = await schedule(task.id, unserved, target.id);
    const siblings = [await schedule(task.id, sibling.tool), await schedule(task.id, sibling.tool)];
    await waitFor(
      async () => (await item(target.id)).status === "running" && (await Promise.all(siblings.map((s) => item(s.id)))).every((s) => s.status === "running"),
      "every served child running",
    );

    const answer = await requestChildCancellation(t.database, { workItemId: target.id, reason: "not this one", actor: "user:alice", actorId: "person:alice" });
    expect(answer).toMatchObject({ kind: "boundary", boundary: { workItemId: target.id, taskId: task.id, descendants: 1, alreadyRequested: false } });
    // The queued descendant left dispatch with the boundary itself, never started.
    expect(await item(descendant.id)).toMatchObject({ status: "cancelled", startedAt: null, stopRootId: target.id });
    // Nothing new starts under the stopped child.
    expect((await refusal(schedule(task.id, unserved, target.id))).code).toBe("cancel_requested");
    // A repeat returns the first boundary.
    expect(await requestChildCancellation(t.database, { workItemId: target.id, actor: "user:alice" })).toMatchObject({
      kind: "boundary",
      boundary: { alreadyRequested: true },
    });
    expect(await requestChildCancellation(t.database, { workItemId: descendant.id, actor: "user:alice" })).toMatchObject({
      kind: "boundary",
      boundary: { workItemId: target.id, alreadyRequested: true },
    });

    await new Promise((r) => setImmediate(r));
    await engine.runChild(target.id);
    const summary = await waitFor(async () => {
      const s = await getChildCancellationSummary(t.database, target.id);
      return s.status === "IN_PROGRESS" ? null : s;
    }, "the scoped Stop to settle");
    expect(summary.scope).toEqual({ kind: "work_item", ref: target.id });
    expect(summary.status).toBe("CANCELLED");
    expect(summary.tool_calls.map((c) => [c.tool_name, c.outcome.kind])).toEqual([
      ["scoped.stopped", "stopped"],
      ["scoped.unserved", "never_started"],
    ]);
    expect((await item(target.id)).status).toBe("cancelled");
    // One plan for the scoped Stop, recorded on the stopped child with its event: the child and its descendant, nothing else.
    const planned = await t.database.prisma.ledgerEvent.findMany({ where: { taskId: task.id, type: LedgerEvent.cancellationPlanned } });
    expect(planned).toHaveLength(1);
    expect(planned[0]).toMatchObject({ workItemId: target.id, actor: "system:cancellation-engine" });
    const plan = planned[0].data as { scope: string; steps: { tool_call_id: string; action: string }[] };
    expect(plan.scope).toBe("work_item");
    expect(plan.steps.map((s) => s.tool_call_id).sort()).toEqual([target.id, descendant.id].sort());
    const row = await item(target.id);
    expect(row.stopPlannedAt).not.toBeNull();
    expect(row.stopPlan).toMatchObject({ steps: plan.steps });
    // A second pass follows the recorded plan: no second plan.
    await engine.runChild(target.id);
    expect(await t.database.prisma.ledgerEvent.count({ where: { taskId: task.id, type: LedgerEvent.cancellationPlanned } })).toBe(1);

    // The siblings were never told to stop: they run on and complete; the task is still active and ends normally.
    expect((await t.database.prisma.task.findUniqueOrThrow({ where: { id: task.id } })).cancelRequestedAt).toBeNull();
    sibling.open();
    await waitFor(async () => (await Promise.all(siblings.map((s) => item(s.id)))).every((s) => s.status === "completed"), "the siblings to complete");
    expect(
      await t.database.prisma.ledgerEvent.count({
        where: { workItemId: { in: siblings.map((s) => s.id) }, type: { in: [LedgerEvent.workItemCancelling, LedgerEvent.workItemStopRequested] } },
      }),
    ).toBe(0);
    const done = await finishTask(t.database, { taskId: task.id, ending: TaskEnding.completed, actor });
    expect(done.task.stage).toBe("completed");
    await expect(getCancellationSummary(t.database, task.id)).rejects.toMatchObject({ code: "not_found" });
  });

  it("a child slower to stop than the pass waits for: its scoped Stop settles when it ends, not at the next maintenance pass", async () => {
    let mayStop!: () => void;
    const stopping = new Promise<void>((r) => (mayStop = r));
    const slow: ToolDefinition = {
      name: "scoped.slow_to_stop",
      kind: "local_worker",
      risk: "low",
      commitsEffect: false,
      mechanism: "abort_signal",
      run: (_input, ctx) =>
        new Promise((_, reject) => ctx.signal.addEventListener("abort", () => void stopping.then(() => reject(ctx.signal.reason)), { once: true })),
    };
    const { engine } = boot([slow]); // its maintenance pass runs once a minute: not what settles this Stop
    const task = await createTask(t.database, { title: "scoped: slow to stop", ownerId: "alice" }, actor);
    const child = await schedule(task.id, slow);
    await waitFor(async () => (await item(child.id)).status === "running", "the child running");
    await requestChildCancellation(t.database, { workItemId: child.id, reason: "not this one", actor: "user:alice" });
    await new Promise((r) => setImmediate(r));
    await engine.runChild(child.id); // waits settleTimeoutMs (2 s) for it, then leaves it being stopped
    expect((await item(child.id)).status).toBe("cancelling");
    expect((await getChildCancellationSummary(t.database, child.id)).status).toBe("IN_PROGRESS");

    mayStop();
    const summary = await waitFor(
      async () => {
        const s = await getChildCancellationSummary(t.database, child.id);
        return s.status === "IN_PROGRESS" ? null : s;
      },
      "the scoped Stop to settle once the child ended",
      5_000,
    );
    expect(summary.status).toBe("CANCELLED");
    expect(await item(child.id)).toMatchObject({ status: "cancelled", stopSettledAt: expect.any(Date) });
  });

  it("a stopped child's commitment is refused at its checkpoint, even from a worker that has not heard of the Stop", async () => {
    const commit = { name: "scoped.commit", kind: "external_action", mechanism: "provider_cancel", commitsEffect: true } as const;
    const task = await createTask(t.database, { title: "scoped: checkpoint", ownerId: "alice" }, actor);
    const child = await schedule(task.id, commit);
    const sibling = await schedule(task.id, commit);
    const claimed = await claimWorkItem(t.database, { workerId: "sleepy", toolNames: [commit.name], leaseMs: 60_000 });
    const other = await claimWorkItem(t.database, { workerId: "awake", toolNames: [commit.name], leaseMs: 60_000 });
    expect([claimed?.id, other?.id]).toEqual([child.id, sibling.id]);
    await requestChildCancellation(t.database, { workItemId: child.id, actor: "user:alice" });
    const refused = await refusal(checkpointWorkItem(t.database, { workItemId: child.id, leaseToken: claimed!.leaseToken!, actor: "worker:sleepy" }));
    expect(refused.code).toBe("cancel_requested");
    expect(await t.database.prisma.ledgerEvent.count({ where: { workItemId: child.id, type: LedgerEvent.checkpointRejected } })).toBe(1);
    // Its sibling's checkpoint still passes: the task goes on.
    await expect(checkpointWorkItem(t.database, { workItemId: sibling.id, leaseToken: other!.leaseToken!, actor: "worker:awake" })).resolves.toMatchObject({
      passed: true,
    });
  });

  it("a conversation Stop stops every task of the conversation (each summary names the scope), and no other conversation's", async () => {
    const { engine } = boot([]);
    const unserved = { name: "scoped.queue", kind: "local_worker", mechanism: "abort_signal", commitsEffect: false } as const;
    const a = await createTask(t.database, { title: "conv: first", ownerId: "alice", conversationId: "conv-x" }, actor);
    const b = await createTask(t.database, { title: "conv: second", ownerId: "alice", conversationId: "conv-x" }, actor);
    const other = await createTask(t.database, { title: "another conversation", ownerId: "alice", conversationId: "conv-y" }, actor);
    for (const task of [a, b, other]) await schedule(task.id, unserved);

    const result = await stopMany(t.database, {
      scope: "conversation",
      ref: "conv-x",
      where: { conversationId: "conv-x" },
      reason: "stop all of it",
      actor: "user:alice",
    });
    expect(result.boundaries.map((x) => x.taskId).sort()).toEqual([a.id, b.id].sort());
    await new Promise((r) => setImmediate(r));
    for (const task of [a, b]) {
      await engine.run(task.id);
      const s = await waitFor(async () => {
        const x = await getCancellationSummary(t.database, task.id);
        return x.status === "IN_PROGRESS" ? null : x;
      }, `task ${task.title} to settle`);
      expect(s).toMatchObject({ status: "CANCELLED", scope: { kind: "conversation", ref: "conv-x" } });
    }
    expect((await t.database.prisma.task.findUniqueOrThrow({ where: { id: other.id } })).cancelRequestedAt).toBeNull();
    // A repeat changes nothing.
    const again = await stopMany(t.database, { scope: "conversation", ref: "conv-x", where: { conversationId: "conv-x" }, actor: "user:alice" });
    expect(again.boundaries).toEqual([]);
    expect(await t.database.prisma.ledgerEvent.count({ where: { taskId: { in: [a.id, b.id] }, type: LedgerEvent.taskCancelRequested } })).toBe(2);

    // A person's Stop: every task of theirs still active, not someone else's.
    const bobs = await createTask(t.database, { title: "bob's", ownerId: "bob", conversationId: "conv-z" }, actor);
    const person = await stopMany(t.database, { scope: "person", ref: "alice", where: { ownerId: "alice" }, actor: "operator:olivia" });
    expect(person.boundaries.map((x) => x.taskId)).toEqual([other.id]);
    expect((await t.database.prisma.task.findUniqueOrThrow({ where: { id: other.id } })).cancelScope).toBe("person");
    expect((await t.database.prisma.task.findUniqueOrThrow({ where: { id: bobs.id } })).cancelRequestedAt).toBeNull();
  });
});
