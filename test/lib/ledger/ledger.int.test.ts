import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reconcileWorkItem } from "../../../lib/cancellation/steps/5-reconcile";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";
import { AppError } from "../../../lib/errors";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { checkpointWorkItem } from "../../../lib/ledger/checkpoint-work-item";
import { claimWorkItem } from "../../../lib/ledger/claim-work-item";
import { completeWorkItem } from "../../../lib/ledger/complete-work-item";
import { createTask } from "../../../lib/ledger/create-task";
import { finishTask, TaskEnding } from "../../../lib/ledger/finish-task";
import { heartbeatWorkItem } from "../../../lib/ledger/heartbeat-work-item";
import { recordSubmission } from "../../../lib/ledger/record-submission";
import { recoverExpiredLeases } from "../../../lib/ledger/recover-expired-leases";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => t?.drop());

const actor = "agent:test";
const newTask = (title = "order two chairs") => createTask(t.database, { title, ownerId: "alice" }, actor);
const schedule = (taskId: string, extra: Partial<Parameters<typeof scheduleWorkItem>[1]> = {}) =>
  scheduleWorkItem(
    t.database,
    { taskId, kind: "external_action", toolName: "shop.create_order", mechanism: "rollback", intentVersion: 1, commitsEffect: true, ...extra },
    actor,
  );
const eventsOf = (workItemId: string) => t.database.prisma.ledgerEvent.findMany({ where: { workItemId }, orderBy: { seq: "asc" } });
const rejection = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error("expected a rejection");
};

describe("claims", () => {
  it("concurrent claims of the same queued item by eight workers: exactly one wins", async () => {
    const task = await newTask();
    const item = await schedule(task.id, { toolName: "tool.solo" });
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => claimWorkItem(t.database, { workerId: `w${i}`, toolNames: ["tool.solo"] })));
    const winners = results.filter((r) => r !== null);
    expect(winners).toHaveLength(1);
    expect(winners[0]!.id).toBe(item.id);
    const row = await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } });
    expect(row).toMatchObject({ status: "running", attempt: 1, leaseToken: winners[0]!.leaseToken });
    expect((await eventsOf(item.id)).filter((e) => e.type === "work_item.claimed")).toHaveLength(1);
  });

  it("many items, many concurrent workers: every item is claimed exactly once", async () => {
    const task = await newTask();
    const items = await Promise.all(Array.from({ length: 20 }, () => schedule(task.id, { toolName: "tool.many" })));
    const claimed: string[] = [];
    await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        for (;;) {
          const got = await claimWorkItem(t.database, { workerId: `w${i}`, toolNames: ["tool.many"] });
          if (!got) return;
          claimed.push(got.id);
        }
      }),
    );
    expect(claimed.sort()).toEqual(items.map((i) => i.id).sort());
  });

  it("claim and completion return the row exactly as the ledger stores it", async () => {
    const task = await newTask();
    await schedule(task.id, { toolName: "tool.shape", input: { items: ["chair", "chair"], amount: 120 } });
    const claimed = await claimWorkItem(t.database, { workerId: "w-shape", toolNames: ["tool.shape"] });
    expect(claimed).toEqual(await t.database.prisma.workItem.findUnique({ where: { id: claimed!.id } }));
    await requestCancellation(t.database, { taskId: task.id, actor });
    const done = await completeWorkItem(t.database, {
      workItemId: claimed!.id,
      leaseToken: claimed!.leaseToken!,
      outcome: "partial",
      partialResult: { rows: [1, 2] },
      actor: "worker:w-shape",
    });
    expect(done).toEqual(await t.database.prisma.workItem.findUnique({ where: { id: claimed!.id } }));
    expect(done).toMatchObject({
      status: "partial",
      partialComplete: true,
      partialResult: { rows: [1, 2] },
      leaseToken: null,
      input: { items: ["chair", "chair"], amount: 120 },
    });
  });

  it("a claim gets a fresh fencing token and a lease expiry from the database clock", async () => {
    const task = await newTask();
    await schedule(task.id, { toolName: "tool.lease" });
    const before = Date.now();
    const claimed = await claimWorkItem(t.database, { workerId: "w1", toolNames: ["tool.lease"], leaseMs: 10_000 });
    expect(claimed!.leaseToken).toMatch(/^[0-9a-f-]{36}$/);
    const expiry = claimed!.leaseExpiresAt!.getTime();
    expect(expiry).toBeGreaterThanOrEqual(before + 9_000);
    expect(expiry).toBeLessThanOrEqual(Date.now() + 11_000);
  });
});

describe("the cancellation boundary", () => {
  it("cancel before dispatch: queued items are never claimed, even with workers polling at that moment", async () => {
    const task = await newTask();
    const items = await Promise.all(Array.from({ length: 5 }, () => schedule(task.id, { toolName: "tool.boundary" })));
    const polling = Array.from({ length: 4 }, (_, i) => claimWorkItem(t.database, { workerId: `p${i}`, toolNames: ["tool.boundary"] }));
    const cancel = requestCancellation(t.database, { taskId: task.id, reason: "user pressed Stop", actor });
    const claims = await Promise.all(polling);
    const boundary = await cancel;
    expect(boundary.kind).toBe("boundary");
    // Claims that won were serialised BEFORE the boundary; none after it.
    const after = await Promise.all(Array.from({ length: 4 }, (_, i) => claimWorkItem(t.database, { workerId: `late${i}`, toolNames: ["tool.boundary"] })));
    expect(after.every((c) => c === null)).toBe(true);
    const claimEvents = await t.database.prisma.ledgerEvent.findMany({ where: { taskId: task.id, type: "work_item.claimed" } });
    const boundaryEvent = await t.database.prisma.ledgerEvent.findFirstOrThrow({ where: { taskId: task.id, type: "task.cancel_requested" } });
    for (const e of claimEvents) expect(e.seq).toBeLessThan(boundaryEvent.seq);
    const stillQueued = await t.database.prisma.workItem.count({ where: { taskId: task.id, status: "queued" } });
    expect(stillQueued + claims.filter(Boolean).length).toBe(items.length);
  });

  it("records intent +1, the time, the reason and one event, in one transaction", async () => {
    const task = await newTask();
    const result = await requestCancellation(t.database, { taskId: task.id, reason: "changed my mind", actor });
    if (result.kind !== "boundary") throw new Error("expected a boundary");
    expect(result.boundary).toMatchObject({ intentVersion: 2, reason: "changed my mind", alreadyRequested: false });
    const row = await t.database.prisma.task.findUniqueOrThrow({ where: { id: task.id } });
    expect(row).toMatchObject({ stage: "cancel_requested", intentVersion: 2, cancelIntentVersion: 2, cancelReason: "changed my mind" });
    expect(row.cancelRequestedAt).toEqual(result.boundary.cancelRequestedAt);
    const events = await t.database.prisma.ledgerEvent.findMany({ where: { taskId: task.id, type: "task.cancel_requested" } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ fromState: "active", toState: "cancel_requested", reason: "changed my mind", actor });
  });

  it("duplicate and concurrent Stops: one boundary, one bump, one event", async () => {
    const task = await newTask();
    const results = await Promise.all(Array.from({ length: 6 }, () => requestCancellation(t.database, { taskId: task.id, reason: "stop", actor })));
    const boundaries = results.map((r) => (r.kind === "boundary" ? r.boundary : null));
    expect(new Set(boundaries.map((b) => b!.cancelRequestedAt.toISOString())).size).toBe(1);
    expect(boundaries.filter((b) => !b!.alreadyRequested)).toHaveLength(1);
    expect(new Set(boundaries.map((b) => b!.intentVersion))).toEqual(new Set([2]));
    const row = await t.database.prisma.task.findUniqueOrThrow({ where: { id: task.id } });
    expect(row.intentVersion).toBe(2);
    expect(await t.database.prisma.ledgerEvent.count({ where: { taskId: task.id, type: "task.cancel_requested" } })).toBe(1);
  });

  it("Stops of several tasks at once (recorded together on PostgreSQL): each its own boundary, bump, event and answer — a repeat, an ended task and a missing one answered as alone", async () => {
    const tasks = await Promise.all(Array.from({ length: 5 }, () => newTask()));
    const ended = await newTask();
    await finishTask(t.database, { taskId: ended.id, ending: TaskEnding.completed, actor, reason: "done" });
    const asks = [
      ...tasks.map((task, i) => ({ taskId: task.id, reason: `stop ${i}`, actor: `user:${i}` })),
      { taskId: tasks[0].id, reason: "again", actor: "user:again" },
      { taskId: ended.id, reason: "too late", actor },
      { taskId: "no-such-task", reason: "who?", actor },
    ];
    const results = await Promise.allSettled(asks.map((a) => requestCancellation(t.database, a)));
    for (const [i, task] of tasks.entries()) {
      const result = results[i];
      if (result.status !== "fulfilled" || result.value.kind !== "boundary") throw new Error(`Stop ${i}: expected a boundary`);
      const row = await t.database.prisma.task.findUniqueOrThrow({ where: { id: task.id } });
      expect(row).toMatchObject({ stage: "cancel_requested", intentVersion: 2, cancelIntentVersion: 2 });
      // the first of the two Stops of tasks[0] recorded it (its reason), the repeat found it
      expect(row.cancelReason).toBe(`stop ${i}`);
      expect(result.value.boundary).toMatchObject({ taskId: task.id, intentVersion: 2, reason: `stop ${i}`, alreadyRequested: false });
      const events = await t.database.prisma.ledgerEvent.findMany({ where: { taskId: task.id, type: "task.cancel_requested" } });
      expect(events.map((e) => [e.actor, e.reason])).toEqual([[`user:${i}`, `stop ${i}`]]);
    }
    const again = results[5];
    expect(again.status === "fulfilled" && again.value.kind === "boundary" && again.value.boundary).toMatchObject({ alreadyRequested: true, reason: "stop 0" });
    const tooLate = results[6];
    expect(tooLate.status === "fulfilled" && tooLate.value).toMatchObject({ kind: "already_finished", stage: "completed" });
    const missing = results[7];
    expect(missing.status === "rejected" && (missing.reason as AppError).code).toBe("not_found");
  });

  it("no new work item may be scheduled after the boundary, and a stale intent version is refused", async () => {
    const task = await newTask();
    const stale = await rejection(schedule(task.id, { intentVersion: 7 }));
    expect(stale.code).toBe("stale_intent");
    await requestCancellation(t.database, { taskId: task.id, actor });
    const refused = await rejection(schedule(task.id, { intentVersion: 2 }));
    expect(refused.code).toBe("cancel_requested");
    expect(await t.database.prisma.workItem.count({ where: { taskId: task.id } })).toBe(0);
  });

  it("a worker that claimed before the boundary and checkpoints after it is refused, and the refusal is recorded", async () => {
    const task = await newTask();
    const item = await schedule(task.id, { toolName: "tool.late-checkpoint" });
    const claimed = await claimWorkItem(t.database, { workerId: "w1", toolNames: ["tool.late-checkpoint"] });
    expect(claimed!.id).toBe(item.id);
    await requestCancellation(t.database, { taskId: task.id, reason: "stop", actor });
    const refused = await rejection(checkpointWorkItem(t.database, { workItemId: item.id, leaseToken: claimed!.leaseToken!, actor: "worker:w1" }));
    expect(refused.code).toBe("cancel_requested");
    const events = await eventsOf(item.id);
    expect(events.map((e) => e.type)).toContain("checkpoint.rejected");
    expect(events.map((e) => e.type)).not.toContain("checkpoint.passed");
    // the heartbeat tells the running code to stop
    const hb = await heartbeatWorkItem(t.database, { workItemId: item.id, leaseToken: claimed!.leaseToken!, actor: "worker:w1" });
    expect(hb.cancelRequested).toBe(true);
  });

  it("a checkpoint before the boundary passes and is recorded with the versions it compared", async () => {
    const task = await newTask();
    const item = await schedule(task.id, { toolName: "tool.ok-checkpoint" });
    const claimed = await claimWorkItem(t.database, { workerId: "w1", toolNames: ["tool.ok-checkpoint"] });
    const passed = await checkpointWorkItem(t.database, { workItemId: item.id, leaseToken: claimed!.leaseToken!, actor: "worker:w1" });
    expect(passed).toMatchObject({ passed: true, intentVersion: 1 });
    const event = (await eventsOf(item.id)).find((e) => e.type === "checkpoint.passed");
    expect(event?.data).toMatchObject({ preparedIntentVersion: 1, taskIntentVersion: 1 });
  });

  it("a confirmation for an earlier proposal version cannot pass the checkpoint after the proposal changed", async () => {
    const task = await newTask();
    await t.database.prisma.task.update({ where: { id: task.id }, data: { proposalVersion: 1 } });
    const item = await schedule(task.id, { toolName: "tool.proposal", proposalVersion: 1 });
    const claimed = await claimWorkItem(t.database, { workerId: "w1", toolNames: ["tool.proposal"] });
    await t.database.prisma.task.update({ where: { id: task.id }, data: { proposalVersion: 2 } }); // the person edited the proposal
    const refused = await rejection(checkpointWorkItem(t.database, { workItemId: item.id, leaseToken: claimed!.leaseToken!, actor: "worker:w1" }));
    expect(refused.code).toBe("stale_intent");
    expect(refused.details).toMatchObject({ confirmedProposalVersion: 1, currentProposalVersion: 2 });
  });
});

describe("leases", () => {
  it("a stale lease token cannot heartbeat, checkpoint or complete; each attempt is an event", async () => {
    const task = await newTask();
    const item = await schedule(task.id, { toolName: "tool.stale" });
    const first = await claimWorkItem(t.database, { workerId: "old", toolNames: ["tool.stale"], leaseMs: 1_000 });
    // the old worker goes silent; its lease expires and recovery releases the item for a retry
    await new Promise((r) => setTimeout(r, 1_100));
    const recovered = await recoverExpiredLeases(t.database);
    expect(recovered.requeued).toContain(item.id);
    const second = await claimWorkItem(t.database, { workerId: "new", toolNames: ["tool.stale"] });
    expect(second!.id).toBe(item.id);
    expect(second!.leaseToken).not.toBe(first!.leaseToken);
    expect(second!.attempt).toBe(2);

    const oldToken = first!.leaseToken!;
    expect((await rejection(heartbeatWorkItem(t.database, { workItemId: item.id, leaseToken: oldToken, actor: "worker:old" }))).code).toBe("stale_lease");
    expect((await rejection(checkpointWorkItem(t.database, { workItemId: item.id, leaseToken: oldToken, actor: "worker:old" }))).code).toBe("stale_lease");
    expect((await rejection(completeWorkItem(t.database, { workItemId: item.id, leaseToken: oldToken, outcome: "completed", actor: "worker:old" }))).code).toBe(
      "stale_lease",
    );

    const rejected = (await eventsOf(item.id)).filter((e) => e.type === "lease.stale_token_rejected");
    expect(rejected.map((e) => (e.data as { action: string }).action)).toEqual(["heartbeat", "checkpoint", "complete"]);
    const row = await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } });
    expect(row).toMatchObject({ status: "running", leaseOwner: "new", leaseToken: second!.leaseToken });

    // the current holder is unaffected
    const done = await completeWorkItem(t.database, {
      workItemId: item.id,
      leaseToken: second!.leaseToken!,
      outcome: "completed",
      result: { ok: true },
      actor: "worker:new",
    });
    expect(done.status).toBe("completed");
  });

  it("a submission reported with a stale token is refused as a state change but the side effect is still recorded", async () => {
    const task = await newTask();
    const item = await schedule(task.id, { toolName: "tool.zombie-submit" });
    const first = await claimWorkItem(t.database, { workerId: "old", toolNames: ["tool.zombie-submit"], leaseMs: 1_000 });
    await new Promise((r) => setTimeout(r, 1_100));
    await recoverExpiredLeases(t.database);
    const refused = await rejection(
      recordSubmission(t.database, { workItemId: item.id, leaseToken: first!.leaseToken!, operationId: "op-zombie-1", actor: "worker:old" }),
    );
    expect(refused.code).toBe("stale_lease");
    const effect = await t.database.prisma.sideEffect.findUnique({ where: { operationId: "op-zombie-1" } });
    expect(effect).toMatchObject({ workItemId: item.id, outcome: "unknown" });
  });

  it("an expired lease after submission goes to reconciliation (uncertain, with a deadline), never back to the queue", async () => {
    const task = await newTask();
    const item = await schedule(task.id, { toolName: "tool.crash-after-submit" });
    const c = await claimWorkItem(t.database, { workerId: "w", toolNames: ["tool.crash-after-submit"], leaseMs: 1_000 });
    await checkpointWorkItem(t.database, { workItemId: item.id, leaseToken: c!.leaseToken!, actor: "worker:w" });
    await recordSubmission(t.database, { workItemId: item.id, leaseToken: c!.leaseToken!, operationId: "op-crash-1", reversible: true, actor: "worker:w" });
    await new Promise((r) => setTimeout(r, 1_100));
    const recovered = await recoverExpiredLeases(t.database);
    expect(recovered.uncertain).toContain(item.id);
    const row = await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } });
    expect(row.status).toBe("uncertain");
    expect(row.reconcileDeadline).not.toBeNull();
    expect(await claimWorkItem(t.database, { workerId: "x", toolNames: ["tool.crash-after-submit"] })).toBeNull();
  });

  it("an expired lease after the boundary, with nothing submitted and nothing committed: never re-run — asked about (uncertain), then discarded when nobody can say", async () => {
    const task = await newTask();
    const item = await schedule(task.id, { toolName: "tool.expire-after-stop", mechanism: "abort_signal", commitsEffect: false, kind: "local_worker" });
    await claimWorkItem(t.database, { workerId: "w", toolNames: ["tool.expire-after-stop"], leaseMs: 1_000 });
    await requestCancellation(t.database, { taskId: task.id, actor });
    await new Promise((r) => setTimeout(r, 1_100));
    const recovered = await recoverExpiredLeases(t.database);
    // Its worker died with it — but a remote request may have finished at its service first (crash mode, seed 1919 #2).
    expect(recovered.uncertain).toContain(item.id);
    expect(await claimWorkItem(t.database, { workerId: "x", toolNames: ["tool.expire-after-stop"] })).toBeNull();
    const row = await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } });
    expect(row).toMatchObject({ status: "uncertain", leaseToken: null });
    // No tool here can say what it did, and it commits nothing: discarded, as the Stop asked.
    expect(await reconcileWorkItem(t.database, row, undefined)).toBe("cancelled_incomplete");
  });
});

describe("completion", () => {
  it("completing a submitted action commits its side effect with the external record and version", async () => {
    const task = await newTask();
    const item = await schedule(task.id, { toolName: "tool.commit" });
    const c = await claimWorkItem(t.database, { workerId: "w", toolNames: ["tool.commit"] });
    await checkpointWorkItem(t.database, { workItemId: item.id, leaseToken: c!.leaseToken!, actor: "worker:w" });
    await recordSubmission(t.database, {
      workItemId: item.id,
      leaseToken: c!.leaseToken!,
      operationId: "op-commit-1",
      reversible: true,
      description: "order #1 for two chairs",
      actor: "worker:w",
    });
    await completeWorkItem(t.database, {
      workItemId: item.id,
      leaseToken: c!.leaseToken!,
      outcome: "completed",
      externalRecordId: "order-1",
      externalVersion: "3",
      actor: "worker:w",
    });
    const effect = await t.database.prisma.sideEffect.findUniqueOrThrow({ where: { operationId: "op-commit-1" } });
    expect(effect).toMatchObject({ outcome: "committed", externalRecordId: "order-1", externalVersion: "3", reversible: true });
  });

  it("a stop outcome without a stop request is refused", async () => {
    const task = await newTask();
    const item = await schedule(task.id, { toolName: "tool.fake-cancel" });
    const c = await claimWorkItem(t.database, { workerId: "w", toolNames: ["tool.fake-cancel"] });
    const refused = await rejection(completeWorkItem(t.database, { workItemId: item.id, leaseToken: c!.leaseToken!, outcome: "cancelled", actor: "worker:w" }));
    expect(refused.code).toBe("bad_request");
    expect((await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } })).status).toBe("running");
  });

  it("ledger events are append-only: the database refuses updates and deletes", async () => {
    const task = await newTask();
    await expect(t.database.prisma.ledgerEvent.updateMany({ where: { taskId: task.id }, data: { reason: "rewritten" } })).rejects.toThrow(/append-only/);
    await expect(t.database.prisma.ledgerEvent.deleteMany({ where: { taskId: task.id } })).rejects.toThrow(/append-only/);
  });
});
