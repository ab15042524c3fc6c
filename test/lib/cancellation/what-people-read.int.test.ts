import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { confirmProposal, shopPrices, startTurn, STOPPED_BEFORE_START, whatHappensNext } from "../../../lib/agent/conversation";
import { startTurnSettler } from "../../../lib/agent/settle-turn";
import { stopTurn } from "../../../lib/agent/stop-turn";
import type { Principal } from "../../../lib/auth/tokens";
import { witnessLog } from "../../../lib/demo/store";
import { AppError } from "../../../lib/errors";
import { claimWorkItem } from "../../../lib/ledger/claim-work-item";
import { LedgerEvent } from "../../../lib/ledger/events";
import { decideReviewItem } from "../../../lib/review/decide-review-item";
import { requestReversal } from "../../../lib/review/request-reversal";
import {
  bootDemoWorld,
  checkAgainstWitness,
  clearFaults,
  itemRow,
  newTask,
  scheduleTool,
  setFaults,
  sleep,
  snapshot,
  stop,
  taskRow,
  until,
  witnessSince,
  type DemoWorld,
} from "../../support/demo-world";
import { installResponseGate, type ResponseGate } from "../../support/response-gate";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { getCancellationSummary } from "../../../lib/cancellation/get-cancellation-summary";
import type { CancellationSummary } from "../../../lib/cancellation/summarize";

/**
 * What people read after a Stop is as true as the ledger (issue 10). Each scenario is one defect found by
 * trying Stopline as a new user would, named for what the person sees; each asserts on the words and on what
 * the demo service's own record (its witness log) shows. Runs on SQLite and on PostgreSQL.
 */

let t: TestDatabase;
let world: DemoWorld;
let gate: ResponseGate | undefined;
let stopSettler: () => Promise<void>;
const oncall: Principal = { id: "oncall", name: "oncall", role: "admin" };
const alice: Principal = { kind: "person", id: "alice", name: "alice@example.com", role: "user" } as Principal;

beforeAll(async () => {
  t = await createTestDatabase();
  world = await bootDemoWorld(t.database, {
    tools: { callTimeoutMs: 1_500, pollMs: 20 },
    engine: { verifyDelayMs: 30, settleTimeoutMs: 1_500, cancelAttempts: 3, cancelBackoffMs: 20, cancelTimeoutMs: 1_000, reconcileIntervalMs: 100 },
    maintenanceMs: 100,
  });
  stopSettler = startTurnSettler(t.database, { sweepMs: 200 });
});
afterAll(async () => {
  gate?.uninstall();
  await stopSettler?.();
  await world?.close();
  await t?.drop();
});
afterEach(async () => {
  gate?.uninstall();
  gate = undefined;
  await clearFaults(world);
});

const summary = (taskId: string) => getCancellationSummary(t.database, taskId);
const settledSummary = (taskId: string, ms = 8_000) =>
  until(
    `the Stop of ${taskId} settled`,
    async () => {
      const s = await summary(taskId);
      return s.status !== "IN_PROGRESS" ? s : null;
    },
    ms,
  );
const agent = () => ({ prices: shopPrices(world.demo.url) });
/** Waits until the demo agent ended the turn's task (it says where the task is, if it never does). */
const ended = (taskId: string) =>
  until(
    `the demo agent ended task ${taskId}`,
    async () => {
      const task = await t.database.prisma.task.findUniqueOrThrow({
        where: { id: taskId },
        include: { workItems: { select: { toolName: true, status: true } } },
      });
      if (task.stage === "completed" || task.stage === "failed") return task;
      return null;
    },
    20_000,
  ).catch(async (error: Error) => {
    const task = await t.database.prisma.task.findUniqueOrThrow({
      where: { id: taskId },
      include: { workItems: { select: { toolName: true, status: true } } },
    });
    throw new Error(`${error.message}; it is ${task.stage}, its steps ${JSON.stringify(task.workItems)}`);
  });
const exportRow = (key: string) =>
  world.demo.db.prepare("SELECT * FROM report_exports WHERE idempotency_key = ?").get(key) as { id: string; status: string } | undefined;

describe("defect 1 — the Stop reached it and failed: it does not read 'finished before the Stop could reach it'", () => {
  it("an export whose cancel endpoint answers 503: 'could not be stopped — the service refused the cancel; it is still running', then '…; it finished N s after the Stop'", {
    timeout: 45_000,
  }, async () => {
    await setFaults(world, "reports", { cancelUnavailable: true });
    const task = await newTask(world, "export, cancel refused", "low");
    const exp = await scheduleTool(world, task.id, "reports.export_report", { rows: 250, rowMs: 24 }); // ~6 s: it outlasts the engine's pass
    await until("the export runs", async () => (await itemRow(world, exp.id)).status === "running" && !!exportRow(exp.idempotencyKey));
    await sleep(150);
    await stop(world, task.id);

    // settled while the export still runs at the service: the Stop failed, and that is the final word for now
    const running = await settledSummary(task.id);
    expect(exportRow(exp.idempotencyKey)?.status).toBe("running");
    expect(running.status).toBe("CANCELLATION_FAILED");
    expect(running.settled_at).not.toBeNull();
    expect(running.tool_calls[0].outcome).toEqual({
      kind: "could_not_stop_running",
      short: "could not stop — still running",
      label: "could not be stopped — the service refused the cancel; it is still running",
    });
    expect(running.user_message).toBe(
      "Stopped new work. One step could not be stopped — the service refused the cancel; it is still running. Two resources are still held by a step that is still running.",
    );
    expect(running.held_resources.map((r) => r.type).sort()).toEqual(["lock", "temp_file"]);

    // it finishes anyway: the words say what happened, with how long after the Stop
    await until("the export finished at the service and in the ledger", async () => (await itemRow(world, exp.id)).status === "completed", 20_000);
    const after = await summary(task.id);
    const finishedAt = witnessSince(world, 0, "reports").find((w) => w.action === "export_completed" && w.subject === exportRow(exp.idempotencyKey)!.id)!.at;
    expect(Date.parse(finishedAt)).toBeGreaterThan(Date.parse(after.cancel_requested_at)); // the service's own record
    // issue 20 item 4: the settled verdict stays, what happened since is added (it no longer flips to PARTIALLY_CANCELLED)
    expect(after.user_message).toMatch(
      /^Stopped new work\. One step could not be stopped — the service refused the cancel; it was still running when the Stop settled\..* Since the Stop: The step reports\.export_report: it ran \d+ s past the Stop, then finished \(250 rows\)\.$/,
    );
    expect(after.user_message).not.toMatch(/before the Stop could reach/);
    expect(after.tool_calls[0].outcome.label).toMatch(/^could not be stopped — the service refused the cancel; it finished \d+ s after the Stop$/);
    expect(after.cancelled_tool_calls.map((c) => c.cancellation_status)).toEqual(["UNRECOVERABLE"]);
    expect(after.status).toBe("CANCELLATION_FAILED");
  });
});

describe("defect 2 — a summary does not look final before it is", () => {
  it("an order whose answer was lost: every answer that is not IN_PROGRESS is the final one (settled_at set, review items open, nothing shown uncertain that is then reconciled)", async () => {
    await setFaults(world, "shop", { acceptThenTimeout: true });
    const task = await newTask(world, "order, answer lost, client polling");
    const order = await scheduleTool(world, task.id, "shop.create_order", { items: [{ sku: "chair", quantity: 1 }] });
    await until("the shop committed the order (its answer hangs)", () =>
      world.demo.db.prepare("SELECT 1 FROM shop_orders WHERE idempotency_key = ?").get(order.idempotencyKey),
    );
    await stop(world, task.id);

    const seen: CancellationSummary[] = [];
    await until(
      "settled",
      async () => {
        const s = await summary(task.id);
        seen.push(s);
        return s.status !== "IN_PROGRESS";
      },
      8_000,
      2,
    );
    for (let i = 0; i < 10; i++) seen.push(await summary(task.id)); // and a few more answers after it settled
    const final = await summary(task.id);
    const answers = seen.filter((s) => s.status !== "IN_PROGRESS");
    expect(seen.filter((s) => s.status === "IN_PROGRESS").every((s) => s.settled_at === null)).toBe(true);
    for (const a of answers) {
      expect(a.settled_at).not.toBeNull();
      expect({
        status: a.status,
        uncertain: a.uncertain_tool_calls,
        effects: a.orphaned_side_effects.length,
        reviews: a.open_review_items,
        message: a.user_message,
      }).toEqual({ status: final.status, uncertain: [], effects: 1, reviews: 1, message: final.user_message });
    }
    expect(final.user_message).toMatch(/^Stopped new work\. One action took effect; a person decides by \d\d:\d\d UTC whether to reverse it\.$/);
    const settledEvents = await t.database.prisma.ledgerEvent.findMany({ where: { taskId: task.id, type: LedgerEvent.cancellationSettled } });
    expect(settledEvents.map((e) => e.data)).toEqual([{ openReviewItems: 1 }]);
    checkAgainstWitness(await snapshot(world, task.id));
  });
});

describe("defects 3 and 8 — the words name what is true", () => {
  it("a model generation whose worker crashed after the Stop: its service is asked (it never received it), and it reads stopped — no 'uncertain action', no 'we are checking with the service', nothing for a person", async () => {
    await world.pool.stop(); // this generation's worker is the one below, and it dies
    try {
      const task = await newTask(world, "a reply, its worker crashes", "low");
      const gen = await scheduleTool(world, task.id, "inference.generate", { prompt: "a long answer", words: 500, wordMs: 20 });
      const claimed = await claimWorkItem(t.database, { workerId: "doomed", toolNames: ["inference.generate"], leaseMs: 300 });
      expect(claimed?.id).toBe(gen.id);
      await stop(world, task.id); // the engine tells it to stop; nobody is there to answer; its lease runs out
      const s = await settledSummary(task.id);
      // The worker died before its request left: the inference service, asked by the call's key, never had it.
      expect((await itemRow(world, gen.id)).status).toBe("cancelled");
      expect(s.status).toBe("CANCELLED");
      expect(s.uncertain_tool_calls).toEqual([]);
      expect(s.tool_calls[0].outcome.label).toBe("stopped");
      expect(s.user_message).toBe("Stopped new work. One running step stopped.");
      expect(s.user_message).not.toMatch(/checking|uncertain|not yet confirmed/);
      expect(await t.database.prisma.reviewItem.count({ where: { taskId: task.id } })).toBe(0);
    } finally {
      world.pool.start();
    }
  });

  it("a child nobody can check (its tool is not registered here) is not 'being checked': a person decides, by a deadline", async () => {
    const task = await newTask(world, "an action of an external worker");
    const { scheduleWorkItem } = await import("../../../lib/ledger/schedule-work-item");
    const item = await scheduleWorkItem(
      t.database,
      { taskId: task.id, kind: "external_action", toolName: "elsewhere.pay_invoice", mechanism: "provider_cancel", commitsEffect: true, intentVersion: 1 },
      "agent:x",
    );
    const claimed = await claimWorkItem(t.database, { workerId: "external", toolNames: ["elsewhere.pay_invoice"], leaseMs: 200 });
    expect(claimed?.id).toBe(item.id);
    await stop(world, task.id);
    const s = await settledSummary(task.id);
    await until(
      "the lease of the vanished worker was recovered and the item handed to a person",
      async () => (await summary(task.id)).tool_calls[0].outcome.kind === "outcome_unknown" && (await itemRow(world, item.id)).reconcileDeadline === null,
      5_000,
    );
    const now = await summary(task.id);
    expect(s.settled_at).not.toBeNull();
    expect(now.tool_calls[0].outcome.label).toMatch(/^outcome unknown — it cannot be checked with the service; a person decides by \d\d:\d\d UTC$/);
    expect(now.user_message).toMatch(/One outcome cannot be established by Stopline; a person decides by \d\d:\d\d UTC\./);
    expect(now.user_message).not.toMatch(/checking with the service/);
    const reviews = await t.database.prisma.reviewItem.findMany({ where: { taskId: task.id } });
    expect(reviews.map((r) => [r.kind, r.status])).toEqual([["resolve_uncertain", "open"]]);
  });
});

describe("defect 4 — a compensation is bound to the version the agent's own write produced", () => {
  it("slow CRM, someone else edits, Stop before the answer, approve: refused as a conflict, nothing changed at the CRM", async () => {
    await setFaults(world, "crm", { someoneElseEdits: true });
    gate = installResponseGate();
    const held = gate.hold({ method: "POST", url: /\/crm\/records$/ }); // the CRM answered; the worker never hears it
    const task = await newTask(world, "record, edited by staff while the answer is lost");
    const rec = await scheduleTool(world, task.id, "crm.create_record", { name: "Grace Hopper", email: "grace@example.com" });
    const arrived = await Promise.race([held.arrived, sleep(5_000).then(() => null)]);
    expect(arrived, "the create request never reached the CRM").not.toBeNull();
    const recordId = (JSON.parse(arrived!.body) as { recordId: string }).recordId;
    await until("other staff edited the record", () =>
      witnessLog(world.demo.db, "crm").some((w) => w.action === "record_edited_by_other_staff" && w.subject === recordId),
    );
    await stop(world, task.id);
    await settledSummary(task.id);
    await until("reconciliation found the record", async () => (await itemRow(world, rec.id)).status === "completed");

    const effect = await t.database.prisma.sideEffect.findFirstOrThrow({ where: { workItemId: rec.id } });
    expect(effect.externalVersion).toBe("1"); // what the agent's write produced — not the current "2"
    expect(effect.evidence).toMatchObject({ createdVersion: "1", currentVersion: "2", editedBy: ["other staff"] });
    const review = await t.database.prisma.reviewItem.findFirstOrThrow({ where: { taskId: task.id, kind: "approve_compensation" } });
    expect(review.proposal).toMatchObject({ target: recordId, expectedVersion: "1" });

    const decided = await decideReviewItem(t.database, world.registry, oncall, {
      reviewItemId: review.id,
      decision: "approve",
      reason: "undo it",
      target: recordId,
      expectedVersion: "1",
    }).catch((e: unknown) => e);
    expect(decided).toBeInstanceOf(AppError);
    expect((decided as AppError).code).toBe("conflict");
    expect((decided as AppError).message).toMatch(/now at version 2, not 1 .*other staff changed it since; nothing was overwritten/);
    expect((await t.database.prisma.reviewItem.findUniqueOrThrow({ where: { id: review.id } })).status).toBe("escalated");
    // the CRM's own record: not archived, the other person's edit stands
    expect(
      witnessLog(world.demo.db, "crm")
        .filter((w) => w.subject === recordId)
        .map((w) => w.action),
    ).toEqual(["record_created", "record_edited_by_other_staff"]);
    const row = world.demo.db.prepare("SELECT archived, name FROM crm_records WHERE id = ?").get(recordId) as { archived: number; name: string };
    expect(row).toEqual({ archived: 0, name: "Grace Hopper (edited)" });
    held.release();
  });
});

describe("defect 5 — tasks end; Stop on a finished task changes nothing; reversal is its own request", () => {
  it("an export that finished: the task completes, Stop answers that nothing is running — no boundary, no review item, no summary", {
    timeout: 45_000,
  }, async () => {
    const turn = await startTurn(t.database, agent(), {
      ownerId: "alice",
      conversationId: "conv-done",
      text: "export a report of 10 rows",
      actor: "user:alice",
    });
    const task = await ended(turn.taskId);
    expect(task.stage).toBe("completed");
    expect(task.endedAt).not.toBeNull();

    const answer = await stop(world, turn.taskId);
    expect(answer).toMatchObject({
      kind: "already_finished",
      stage: "completed",
      message: expect.stringMatching(/^Nothing to stop: this request had already finished, and nothing of it is running\./),
    });
    await sleep(300);
    expect(await t.database.prisma.ledgerEvent.count({ where: { taskId: turn.taskId, type: LedgerEvent.taskCancelRequested } })).toBe(0);
    expect(await t.database.prisma.reviewItem.count({ where: { taskId: turn.taskId } })).toBe(0);
    expect((await taskRow(world, turn.taskId)).cancelRequestedAt).toBeNull();
    await expect(summary(turn.taskId)).rejects.toMatchObject({ code: "not_found" });
  });

  it("an order placed as asked: the task completes; Stop later opens nothing; 'Request reversal' opens a review another person must approve", {
    timeout: 45_000,
  }, async () => {
    const turn = await startTurn(t.database, agent(), { ownerId: "alice", conversationId: "conv-order-done", text: "order a lamp", actor: "user:alice" });
    await confirmProposal(t.database, { taskId: turn.taskId, proposalVersion: 1, actor: "user:alice" });
    expect((await ended(turn.taskId)).stage).toBe("completed");
    const orderId = (await t.database.prisma.sideEffect.findFirstOrThrow({ where: { taskId: turn.taskId } })).externalRecordId!;

    expect((await stop(world, turn.taskId)).kind).toBe("already_finished");
    await sleep(200);
    expect(await t.database.prisma.reviewItem.count({ where: { taskId: turn.taskId } })).toBe(0);
    expect(
      witnessLog(world.demo.db, "shop")
        .filter((w) => w.subject === orderId)
        .map((w) => w.action),
    ).toEqual(["order_created"]);

    const reversal = await requestReversal(t.database, world.registry, alice, { taskId: turn.taskId, reason: "I changed my mind" });
    expect(reversal.reviewItems.map((r) => [r!.kind, r!.status, r!.requestedBy])).toEqual([["approve_compensation", "open", "user:alice@example.com"]]);
    expect(reversal.message).toMatch(
      /^Reversal requested: another person decides by \d\d:\d\d UTC whether to reverse what this request did; nothing is undone before then\.$/,
    );
    const again = await requestReversal(t.database, world.registry, alice, { taskId: turn.taskId, reason: "again" });
    expect(again.reviewItems.map((r) => r!.id)).toEqual(reversal.reviewItems.map((r) => r!.id)); // asking twice asks once
    const review = reversal.reviewItems[0]!;
    const proposal = review.proposal as { target: string; expectedVersion: string };
    expect(proposal).toMatchObject({ target: orderId, expectedVersion: "1" });

    // the same approval rules: not by the person who asked (maker-checker)
    const own = await decideReviewItem(t.database, world.registry, alice, { reviewItemId: review.id, decision: "approve", reason: "mine", ...proposal }).catch(
      (e: unknown) => e,
    );
    expect((own as AppError).code).toBe("forbidden");
    expect(
      witnessLog(world.demo.db, "shop")
        .filter((w) => w.subject === orderId)
        .map((w) => w.action),
    ).toEqual(["order_created"]);
    const decided = await decideReviewItem(t.database, world.registry, oncall, {
      reviewItemId: review.id,
      decision: "approve",
      reason: "the customer asked",
      ...proposal,
    });
    expect(decided).toMatchObject({ status: "resolved", compensation: { status: "compensated" } });
    expect(
      witnessLog(world.demo.db, "shop")
        .filter((w) => w.subject === orderId)
        .map((w) => w.action),
    ).toEqual(["order_created", "order_cancelled"]);
  });
});

describe("defect 6 — Stop pressed right after Enter: nothing starts", () => {
  it("the Stop for the turn arrives before the message: the task is born stopped, and when the message arrives nothing of it starts", async () => {
    const since = witnessLog(world.demo.db).at(-1)?.seq ?? 0;
    const stopped = await stopTurn(t.database, {
      conversationId: "conv-fast",
      turnId: "turn-1",
      ownerId: "alice",
      text: "export a report of 3000 rows",
      reason: "pressed Stop",
      actor: "user:alice",
      mayStopOthers: false,
    });
    expect(stopped.kind).toBe("boundary");
    expect(stopped.kind === "boundary" && stopped.boundary.alreadyRequested).toBe(false);
    const turn = await startTurn(t.database, agent(), {
      ownerId: "alice",
      conversationId: "conv-fast",
      text: "export a report of 3000 rows",
      actor: "user:alice",
      turnId: "turn-1",
    });
    expect(turn.taskId).toBe(stopped.kind === "boundary" ? stopped.boundary.taskId : "");
    expect(turn.reply).toBe(STOPPED_BEFORE_START);
    const s = await settledSummary(turn.taskId);
    expect(s.status).toBe("CANCELLED");
    expect(s.user_message).toBe("Stopped new work. Nothing was running.");
    expect(await t.database.prisma.workItem.count({ where: { taskId: turn.taskId } })).toBe(0);
    await sleep(300);
    expect(witnessSince(world, since)).toEqual([]); // the report service never heard of it: no rows, no lock, no temp file
    const events = await t.database.prisma.ledgerEvent.findMany({ where: { taskId: turn.taskId }, orderBy: { seq: "asc" } });
    expect(events.slice(0, 2).map((e) => e.type)).toEqual([LedgerEvent.taskCreated, LedgerEvent.taskCancelRequested]);
    expect(events[1].data).toMatchObject({ bornStopped: true });
  });

  it("Stop and message racing for the same turn: one task per turn, and nothing is claimed after its boundary", async () => {
    for (let i = 0; i < 6; i++) {
      const turnId = `race-${i}`;
      const [stopped] = await Promise.all([
        stopTurn(t.database, {
          conversationId: "conv-race",
          turnId,
          ownerId: "alice",
          text: "export a report of 400 rows",
          reason: null,
          actor: "user:alice",
          mayStopOthers: false,
        }),
        startTurn(t.database, agent(), { ownerId: "alice", conversationId: "conv-race", text: "export a report of 400 rows", actor: "user:alice", turnId }),
      ]);
      const tasks = await t.database.prisma.task.findMany({ where: { conversationId: "conv-race", turnId } });
      expect(tasks).toHaveLength(1);
      expect(stopped.kind === "boundary" && stopped.boundary.taskId).toBe(tasks[0].id);
      const events = await t.database.prisma.ledgerEvent.findMany({ where: { taskId: tasks[0].id }, orderBy: { seq: "asc" } });
      const boundary = events.find((e) => e.type === LedgerEvent.taskCancelRequested)!;
      expect(events.filter((e) => e.type === LedgerEvent.workItemClaimed && e.seq > boundary.seq)).toEqual([]);
      if ((boundary.data as { bornStopped?: boolean }).bornStopped) expect(await t.database.prisma.workItem.count({ where: { taskId: tasks[0].id } })).toBe(0);
      await settledSummary(tasks[0].id);
    }
  });
});

describe("defect 7 — the demo agent says what will actually happen", () => {
  it("an export's reply promises no proposal and does not quote itself; it says what Stop would keep", async () => {
    const turn = await startTurn(t.database, agent(), {
      ownerId: "alice",
      conversationId: "conv-words",
      text: "export a report of 5 rows",
      actor: "user:alice",
    });
    const gen = await until("the reply was written", async () => {
      const item = await t.database.prisma.workItem.findFirst({ where: { taskId: turn.taskId, kind: "model_request", status: "completed" } });
      return item;
    });
    const text = (gen.result as { text: string }).text;
    expect(turn.reply).toBe("Exporting a report of 5 rows.");
    expect(text).toBe(whatHappensNext({ type: "export", rows: 5 }));
    expect(text).not.toMatch(/proposal|Here is what I will do|Exporting a report/);
    expect(text).toMatch(/If you press Stop, the rows already written are kept/);
  });

  it("an order's reply says nothing is ordered before the person confirms", async () => {
    const turn = await startTurn(t.database, agent(), { ownerId: "alice", conversationId: "conv-words-2", text: "order two mugs", actor: "user:alice" });
    expect(turn.reply).toMatch(/^I can order 2 × mug for €18\.00\. Please confirm\.$/);
    const gen = await until("the reply was written", () =>
      t.database.prisma.workItem.findFirst({ where: { taskId: turn.taskId, kind: "model_request", status: "completed" } }),
    );
    expect((gen.result as { text: string }).text).toMatch(/^Nothing is ordered until you confirm\./);
  });
});
