import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "../../../lib/auth/tokens";
import { cancellationMetrics } from "../../../lib/metrics/cancellation-metrics";
import { decideReviewItem } from "../../../lib/review/decide-review-item";
import {
  bootDemoWorld,
  checkAgainstWitness,
  clearFaults,
  hasEvent,
  itemRow,
  lastWitnessSeq,
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
  type Snapshot,
} from "../../support/demo-world";
import { installResponseGate, type ResponseGate } from "../../support/response-gate";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { witnessLog } from "../../../lib/demo/store";

/**
 * The fault matrix (issue 4): every fault control of every demo service where it applies, with Stop at the
 * seeds' boundaries — before dispatch, during a read, before commitment, during submission, after success.
 * Each scenario checks the LEDGER (work items, side effects, resources, review items), the SUMMARY the user
 * is shown, and — in every scenario — that no claim in the summary contradicts the service's WITNESS LOG
 * (lib/conformance/witness-check.ts). One demo world per file; scenarios run one after another, each sets the
 * faults it needs through the services' control endpoint and clears them afterwards.
 *
 * The expectations are the design's (DESIGN.md, the seeds), not the implementation's. When written, these
 * scenarios failed and documented defects, since fixed (kept here as the reason each scenario exists):
 *  - A: an abandoned commitment request still in flight at the service was reconciled `not_committed` → CANCELLED,
 *    then the service committed it (fixed: reconciliation first withdraws the request — a fence by idempotency
 *    key — and only then takes "not committed" as final) (steps/5-reconcile.ts, settleByInspect: `mayStillSend` only looks for a live lease, not
 *    for a request already on its way) — "latency on the commitment request only" × shop, crm, mailer.
 *  - B: shop.create_order's cancel() cancels a PLACED order (a compensation, without a person's approval:
 *    tools.ts createOrder.cancel); with a slow shop the late cancel also lands after reconciliation recorded the
 *    order committed, so the summary reports an order that no longer exists — shop "acceptThenTimeout", "latency".
 *  - C: the crm someoneElseEdits fault tells the creator the version AFTER the other staff's edit (server.ts,
 *    POST /crm/records), so the approved archive overwrites their edit — crm "someoneElseEdits".
 *  - E: Stop while the draft request is in flight leaves an undiscarded draft (tools.ts sendEmail.run) — mailer
 *    "during preparation".
 *  - F: resources of a child that is uncertain but still running at the service are cleaned up at once, fail,
 *    are recorded orphaned and never re-verified after the job releases them (steps/6-clean-up-and-verify.ts,
 *    cleanupAndVerify's `settled` filter) — reports "cancelUnavailable".
 *  - G: the demo inference service never notices the client went away (server.ts, POST /inference/generate
 *    listens for the request's 'close', already emitted once the body was read) — inference "mid-generation",
 *    "latency".
 *  - I: "had already finished" for a child that finished after the Stop (summarize.ts) — reports
 *    "ignoreCancellation".
 *  - J: a resolve_uncertain review item stays open after reconciliation established the outcome — shop
 *    "cancelUnavailable …, once reconciled".
 */

let t: TestDatabase;
let world: DemoWorld;
let gate: ResponseGate | undefined;
const oncall: Principal = { id: "test-oncall", name: "oncall", role: "admin" };

beforeAll(async () => {
  t = await createTestDatabase();
  world = await bootDemoWorld(t.database, {
    tools: { callTimeoutMs: 1_500, pollMs: 20 },
    engine: { verifyDelayMs: 30, settleTimeoutMs: 1_500, cancelAttempts: 3, cancelBackoffMs: 20, cancelTimeoutMs: 1_000, reconcileIntervalMs: 100 },
    maintenanceMs: 100,
  });
});
afterAll(async () => {
  gate?.uninstall();
  await world?.close();
  await t?.drop();
});
afterEach(async () => {
  gate?.uninstall();
  gate = undefined;
  await clearFaults(world);
});

// ---- helpers -----------------------------------------------------------------------------------------

const settled = (taskId: string, ms = 8_000) =>
  until(`task ${taskId} settled (stage cancelled)`, async () => (await taskRow(world, taskId)).stage === "cancelled", ms);
/** Waits for reconciliation to reach a terminal status — bounded, without failing: the assertions judge. */
const reconciled = (itemId: string, ms = 4_000) =>
  until(
    `work item ${itemId} reconciled`,
    async () => ["completed", "failed", "cancelled", "partial", "cancelled_incomplete"].includes((await itemRow(world, itemId)).status),
    ms,
  ).catch(() => undefined);
const row = <T = Record<string, unknown>>(table: string, key: string) =>
  world.demo.db.prepare(`SELECT * FROM ${table} WHERE idempotency_key = ?`).get(key) as T | undefined;
const reviewsOf = (s: Snapshot, kind: string) => s.reviews.filter((r) => r.kind === kind);
const stepEvents = (taskId: string, workItemId: string) =>
  t.database.prisma.ledgerEvent.findMany({ where: { taskId, workItemId, type: "cancellation.step" }, orderBy: { seq: "asc" } });
const decide = (reviewItemId: string, proposal: unknown, overrides: { expectedVersion?: string | null } = {}) => {
  const p = proposal as { target: string | null; expectedVersion: string | null };
  return decideReviewItem(t.database, world.registry, oncall, {
    reviewItemId,
    decision: "approve",
    reason: "the customer asked to undo it",
    target: p.target,
    expectedVersion: overrides.expectedVersion === undefined ? p.expectedVersion : overrides.expectedVersion,
  });
};
const settle = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ value, error: null as unknown }),
    (error: unknown) => ({ value: null, error }),
  );

const ORDER = { items: [{ sku: "chair", quantity: 2 }] };
const RECORD = { name: "Ada Lovelace", email: "ada@example.com" };
const EMAIL = { to: "ada@example.com", subject: "Your order", body: "Thanks for your order." };

// ---- before dispatch ---------------------------------------------------------------------------------

describe("Stop before dispatch", () => {
  it("every service: queued calls are removed from dispatch, never claimed afterwards, and never reach a service", async () => {
    const since = lastWitnessSeq(world);
    await world.pool.stop(); // no worker is free: every child is still queued when Stop lands
    let taskId = "";
    try {
      const task = await newTask(world, "before dispatch");
      taskId = task.id;
      await scheduleTool(world, task.id, "shop.check_stock", { sku: "chair" });
      await scheduleTool(world, task.id, "shop.create_order", ORDER);
      await scheduleTool(world, task.id, "crm.create_record", RECORD);
      await scheduleTool(world, task.id, "mailer.send_email", EMAIL);
      await scheduleTool(world, task.id, "reports.export_report", { rows: 20, rowMs: 5 });
      await scheduleTool(world, task.id, "inference.generate", { prompt: "hello", words: 5, wordMs: 5 });
      const first = await stop(world, task.id);
      const again = await stop(world, task.id); // Stop is idempotent (invariant 7)
      if (first.kind !== "boundary" || again.kind !== "boundary") throw new Error("Stop on an active task must record a boundary");
      expect(first.boundary.alreadyRequested).toBe(false);
      expect(again.boundary).toEqual({ ...first.boundary, alreadyRequested: true });
    } finally {
      world.pool.start(); // a worker that slept through the Stop wakes up and looks for work
    }
    await settled(taskId);
    await sleep(300);

    const s = await snapshot(world, taskId);
    expect(s.items).toHaveLength(6);
    for (const item of s.items)
      expect({ tool: item.toolName, status: item.status, startedAt: item.startedAt, attempt: item.attempt }).toEqual({
        tool: item.toolName,
        status: "cancelled",
        startedAt: null,
        attempt: 0,
      });
    expect(await t.database.prisma.ledgerEvent.count({ where: { taskId, type: "work_item.removed_from_dispatch" } })).toBe(6);
    expect(await t.database.prisma.ledgerEvent.count({ where: { taskId, type: { in: ["work_item.claimed", "checkpoint.passed"] } } })).toBe(0);
    expect(s.sideEffects).toEqual([]);
    expect(s.resources).toEqual([]);
    expect(s.reviews).toEqual([]);
    // the services never heard of any of them
    expect(s.calls.flatMap((c) => c.subjects)).toEqual([]);
    expect(witnessSince(world, since)).toEqual([]);
    expect(s.summary.status).toBe("CANCELLED");
    expect(s.summary.cancelled_tool_calls.map((c) => c.cancellation_status)).toEqual(Array(6).fill("CANCELLED"));
    expect(s.summary.user_message).toBe("Stopped new work. Six queued steps never started.");
    checkAgainstWitness(s);
  });
});

// ---- shop --------------------------------------------------------------------------------------------

describe("shop", () => {
  it("latency × during a read: the shop performs the read anyway — it is reported abandoned (a read changes nothing), never CANCELLED", async () => {
    await setFaults(world, "shop", { latencyMs: 400 });
    const task = await newTask(world, "read stock");
    const read = await scheduleTool(world, task.id, "shop.check_stock", { sku: "lamp" });
    await until("the read is running", async () => (await itemRow(world, read.id)).status === "running");
    await sleep(80);
    await stop(world, task.id);
    await settled(task.id);
    await sleep(450); // the shop finishes the abandoned read

    const s = await snapshot(world, task.id);
    expect(s.items[0].status).toBe("cancelled");
    expect(s.items[0].startedAt).not.toBeNull();
    expect(s.sideEffects).toEqual([]);
    expect(s.summary.status).toBe("CANCELLED");
    // The shop did perform the read (its witness says so): the summary must not list it as cancelled (defect 3).
    expect(witnessSince(world, 0, "shop").some((w) => w.action === "stock_checked" && w.subject === "lamp")).toBe(true);
    expect(s.summary.cancelled_tool_calls).toEqual([]);
    expect(s.summary.tool_calls.map((c) => c.outcome)).toEqual([
      { kind: "abandoned", short: "abandoned (a read)", label: "stopped waiting for it — a read changes nothing" },
    ]);
    expect(s.summary.user_message).toBe("Stopped new work. One read abandoned; a read changes nothing.");
    checkAgainstWitness(s);
  });

  it("latency × during submission: the order request is in flight when Stop lands — the summary must not call it cancelled once the shop creates the order", async () => {
    await setFaults(world, "shop", { latencyMs: 600 });
    const task = await newTask(world, "order, slow shop");
    const order = await scheduleTool(world, task.id, "shop.create_order", ORDER);
    await until("the checkpoint before the order passed", () => hasEvent(world, order.id, "checkpoint.passed"));
    await sleep(80); // the POST is on its way; the shop has not answered yet
    await stop(world, task.id);
    await settled(task.id);
    await until("the shop processed the abandoned order request", () => row("shop_orders", order.idempotencyKey), 3_000);
    await reconciled(order.id);
    await sleep(300); // another maintenance pass or two

    const s = await snapshot(world, task.id);
    checkAgainstWitness(s);
    expect(s.calls[0].subjects).toHaveLength(1); // exactly one order
    expect(["completed", "uncertain"]).toContain(s.items[0].status);
  });

  it("acceptThenTimeout × during submission: uncertain → reconciled committed by idempotency key; exactly one order, not cancelled without a person", async () => {
    await setFaults(world, "shop", { acceptThenTimeout: true });
    const task = await newTask(world, "order, answer lost");
    const order = await scheduleTool(world, task.id, "shop.create_order", ORDER);
    await until("the shop committed the order (its answer hangs)", () => row("shop_orders", order.idempotencyKey));
    await stop(world, task.id);
    await settled(task.id);
    await reconciled(order.id);

    const s = await snapshot(world, task.id);
    checkAgainstWitness(s);
    expect(s.calls[0].subjects).toHaveLength(1); // reconciled, never re-submitted
    // Compensation ("cancel a placed order") needs a person's approval (invariant 6): Stop alone must not undo it.
    expect(s.actions).toEqual(["shop:order_created"]);
    expect(s.items[0].status).toBe("completed");
    expect(await hasEvent(world, order.id, "work_item.uncertain")).toBe(true);
    expect(s.sideEffects.map((e) => e.outcome)).toEqual(["committed"]);
    expect(reviewsOf(s, "approve_compensation")).toHaveLength(1);
    expect(s.summary.status).toBe("PARTIALLY_CANCELLED");
    expect(s.summary.orphaned_side_effects.map((e) => e.tool_call_id)).toEqual([order.correlationId]);
  });

  it("cancelUnavailable × during submission: the cancel is retried, the item goes uncertain with a review item, then is reconciled committed", async () => {
    await setFaults(world, "shop", { acceptThenTimeout: true, cancelUnavailable: true });
    const task = await newTask(world, "order, cancel endpoint down");
    const order = await scheduleTool(world, task.id, "shop.create_order", ORDER);
    await until("the shop committed the order", () => row("shop_orders", order.idempotencyKey));
    await stop(world, task.id);
    await settled(task.id);
    await reconciled(order.id);

    const s = await snapshot(world, task.id);
    checkAgainstWitness(s);
    const steps = await stepEvents(task.id, order.id);
    const cancelStep = steps.find((e) => (e.data as { action?: string }).action === "provider_cancel");
    expect(cancelStep?.data).toMatchObject({ success: false });
    expect(cancelStep?.reason).toMatch(/failed after 3 attempts: .*503/);
    expect(await hasEvent(world, order.id, "work_item.uncertain")).toBe(true);
    // A person is asked while the outcome is unknown — unless reconciliation established it first; either
    // way no question about it is left open once the service confirmed the order.
    expect(reviewsOf(s, "resolve_uncertain").length).toBeLessThanOrEqual(1);
    expect(reviewsOf(s, "resolve_uncertain").filter((r) => r.status === "open" || r.status === "escalated")).toEqual([]);
    expect(s.actions).toEqual(["shop:order_created"]); // the order stands; exactly one
    expect(s.items[0].status).toBe("completed");
    expect(s.sideEffects.map((e) => e.outcome)).toEqual(["committed"]);
    expect(reviewsOf(s, "approve_compensation")).toHaveLength(1);
    expect(s.summary.status).toBe("PARTIALLY_CANCELLED");
    expect(s.summary.orphaned_side_effects.map((e) => e.tool_call_id)).toEqual([order.correlationId]);
  });

  it("cancelUnavailable × during submission, once reconciled: the 'outcome uncertain' review item does not stay open for an outcome that is now known", async () => {
    await setFaults(world, "shop", { acceptThenTimeout: true, cancelUnavailable: true });
    const task = await newTask(world, "order, cancel endpoint down, reconciled");
    const order = await scheduleTool(world, task.id, "shop.create_order", ORDER);
    await until("the shop committed the order", () => row("shop_orders", order.idempotencyKey));
    await stop(world, task.id);
    await settled(task.id);
    await reconciled(order.id);
    await sleep(300); // further maintenance passes

    const s = await snapshot(world, task.id);
    expect(s.items[0].status).toBe("completed"); // known: the order exists
    checkAgainstWitness(s);
    const stale = reviewsOf(s, "resolve_uncertain").filter((r) => r.status === "open" || r.status === "escalated");
    expect(
      stale.map((r) => r.subject),
      "a review item still asks a person to resolve an outcome the service already confirmed",
    ).toEqual([]);
  });

  it("ignoreCancellation × during submission: an acknowledged but ignored cancel is not a cancellation — the order is reported as it is", async () => {
    await setFaults(world, "shop", { acceptThenTimeout: true, ignoreCancellation: true });
    const task = await newTask(world, "order, cancel ignored");
    const order = await scheduleTool(world, task.id, "shop.create_order", ORDER);
    await until("the shop committed the order", () => row("shop_orders", order.idempotencyKey));
    await stop(world, task.id);
    await settled(task.id);
    await reconciled(order.id);

    const s = await snapshot(world, task.id);
    checkAgainstWitness(s);
    expect(s.actions).not.toContain("shop:order_cancelled");
    expect(s.items[0].status).toBe("completed");
    expect(s.summary.cancelled_tool_calls).toEqual([]);
    expect(s.summary.completed_tool_calls.map((c) => c.tool_call_id)).toEqual([order.correlationId]);
    expect(s.summary.orphaned_side_effects.map((e) => e.tool_call_id)).toEqual([order.correlationId]);
    expect(s.summary.status).toBe("PARTIALLY_CANCELLED");
  });

  it("after success: compensation is proposed, a wrong version is refused, approval cancels the order (witness order_cancelled)", async () => {
    const task = await newTask(world, "order placed, then Stop");
    const order = await scheduleTool(world, task.id, "shop.create_order", ORDER);
    await until("the order completed", async () => (await itemRow(world, order.id)).status === "completed");
    await stop(world, task.id);
    await settled(task.id);

    const before = await snapshot(world, task.id);
    checkAgainstWitness(before);
    const orderId = before.calls[0].subjects[0];
    const [review] = reviewsOf(before, "approve_compensation");
    expect(review?.status).toBe("open");
    expect(review.proposal).toMatchObject({ action: "compensate", target: orderId, expectedVersion: "1" });
    expect(before.summary.status).toBe("PARTIALLY_CANCELLED");
    expect(before.summary.orphaned_side_effects[0].description).toMatch(/: took effect — a person decides by \d\d:\d\d UTC whether to reverse it$/);
    expect(before.summary.user_message).toMatch(/One action took effect; a person decides by \d\d:\d\d UTC whether to reverse it\./);

    // an approval for another version than the one proposed is not an approval of this proposal
    await expect(decide(review.id, review.proposal, { expectedVersion: "2" })).rejects.toMatchObject({ code: "conflict" });
    expect(witnessSince(world, 0, "shop").some((w) => w.action === "order_cancelled" && w.subject === orderId)).toBe(false);

    const decided = await decide(review.id, review.proposal);
    expect(decided).toMatchObject({ status: "resolved", compensation: { status: "compensated" } });
    const after = await snapshot(world, task.id);
    expect(after.actions).toEqual(["shop:order_created", "shop:order_cancelled"]);
    expect(after.sideEffects.map((e) => e.outcome)).toEqual(["compensated"]);
    expect(after.summary.orphaned_side_effects).toEqual([]);
    checkAgainstWitness(after);
  });

  it("after success, order shipped: the compensation fails honestly — escalated, nothing cancelled, still reported", async () => {
    const task = await newTask(world, "order shipped, then Stop");
    const order = await scheduleTool(world, task.id, "shop.create_order", ORDER);
    await until("the order completed", async () => (await itemRow(world, order.id)).status === "completed");
    await stop(world, task.id);
    await settled(task.id);
    const before = await snapshot(world, task.id);
    const orderId = before.calls[0].subjects[0];
    const shipped = await fetch(`${world.demo.url}/shop/orders/${orderId}/ship`, { method: "POST" });
    expect(shipped.status).toBe(200);

    const [review] = reviewsOf(before, "approve_compensation");
    const outcome = await settle(decide(review.id, review.proposal));
    expect(outcome.error).toMatchObject({ code: "conflict" });
    const after = await snapshot(world, task.id);
    expect(after.reviews.find((r) => r.id === review.id)?.status).toBe("escalated");
    expect(after.actions).toEqual(["shop:order_created", "shop:order_shipped"]);
    expect(after.sideEffects.map((e) => e.outcome)).toEqual(["committed"]);
    expect(after.summary.orphaned_side_effects.map((e) => e.tool_call_id)).toEqual([order.correlationId]);
    checkAgainstWitness(after);
  });

  it("cancelUnavailable × compensation: the shop's cancel endpoint is down when the person approves — reported failed and escalated, nothing claimed", async () => {
    const task = await newTask(world, "order, compensation endpoint down");
    const order = await scheduleTool(world, task.id, "shop.create_order", ORDER);
    await until("the order completed", async () => (await itemRow(world, order.id)).status === "completed");
    await stop(world, task.id);
    await settled(task.id);
    const before = await snapshot(world, task.id);
    await setFaults(world, "shop", { cancelUnavailable: true });

    const [review] = reviewsOf(before, "approve_compensation");
    const decided = await decide(review.id, review.proposal);
    expect(decided).toMatchObject({ status: "escalated", compensation: { status: "failed", detail: expect.stringMatching(/503/) } });
    const after = await snapshot(world, task.id);
    expect(after.actions).toEqual(["shop:order_created"]);
    expect(after.sideEffects.map((e) => e.outcome)).toEqual(["committed"]);
    expect(after.reviews.find((r) => r.id === review.id)?.status).toBe("escalated");
    expect(after.summary.orphaned_side_effects.map((e) => e.tool_call_id)).toEqual([order.correlationId]);
    checkAgainstWitness(after);
  });

  it("ignoreCancellation × compensation: the shop acknowledges the cancel but keeps the order — reported failed and escalated, not compensated", async () => {
    const task = await newTask(world, "order, compensation ignored");
    const order = await scheduleTool(world, task.id, "shop.create_order", ORDER);
    await until("the order completed", async () => (await itemRow(world, order.id)).status === "completed");
    await stop(world, task.id);
    await settled(task.id);
    const before = await snapshot(world, task.id);
    await setFaults(world, "shop", { ignoreCancellation: true });

    const [review] = reviewsOf(before, "approve_compensation");
    const decided = await decide(review.id, review.proposal);
    expect(decided).toMatchObject({ status: "escalated", compensation: { status: "failed" } });
    expect(decided.compensation?.detail).toMatch(/acknowledged but the order is placed/);
    const after = await snapshot(world, task.id);
    expect(after.actions).toEqual(["shop:order_created", "shop:cancel_ignored"]);
    expect(after.sideEffects.map((e) => e.outcome)).toEqual(["committed"]);
    expect(after.summary.orphaned_side_effects.map((e) => e.tool_call_id)).toEqual([order.correlationId]);
    checkAgainstWitness(after);
  });
});

// ---- crm ---------------------------------------------------------------------------------------------

describe("crm", () => {
  it("someoneElseEdits × after success: approving the archive is refused with a conflict and escalated; the witness shows no archive", async () => {
    await setFaults(world, "crm", { someoneElseEdits: true });
    const task = await newTask(world, "record, edited by staff");
    const record = await scheduleTool(world, task.id, "crm.create_record", RECORD);
    await until("the record completed", async () => (await itemRow(world, record.id)).status === "completed");
    await stop(world, task.id);
    await settled(task.id);
    const before = await snapshot(world, task.id);
    checkAgainstWitness(before);
    expect(before.actions).toEqual(["crm:record_created", "crm:record_edited_by_other_staff"]);

    const [review] = reviewsOf(before, "approve_compensation");
    const outcome = await settle(decide(review.id, review.proposal));
    const after = await snapshot(world, task.id);
    // Other staff changed the record after the agent created it: nothing may be overwritten.
    expect(after.actions).not.toContain("crm:record_archived");
    expect(outcome.error).toMatchObject({ code: "conflict" });
    expect(after.reviews.find((r) => r.id === review.id)?.status).toBe("escalated");
    checkAgainstWitness(after);
  });

  it("an edit by other staff after creation (edit endpoint) × after success: approval refused with a conflict, escalated, no archive", async () => {
    const task = await newTask(world, "record, edited later");
    const record = await scheduleTool(world, task.id, "crm.create_record", RECORD);
    await until("the record completed", async () => (await itemRow(world, record.id)).status === "completed");
    await stop(world, task.id);
    await settled(task.id);
    const before = await snapshot(world, task.id);
    const recordId = before.calls[0].subjects[0];
    expect((await fetch(`${world.demo.url}/crm/records/${recordId}/edit`, { method: "POST" })).status).toBe(200);

    const [review] = reviewsOf(before, "approve_compensation");
    expect(review.proposal).toMatchObject({ target: recordId, expectedVersion: "1" });
    const outcome = await settle(decide(review.id, review.proposal));
    expect(outcome.error).toMatchObject({ code: "conflict" });
    const after = await snapshot(world, task.id);
    expect(after.reviews.find((r) => r.id === review.id)?.status).toBe("escalated");
    expect(after.actions).toEqual(["crm:record_created", "crm:record_edited_by_other_staff"]);
    expect(after.sideEffects.map((e) => e.outcome)).toEqual(["committed"]);
    checkAgainstWitness(after);
  });

  it("acceptThenTimeout × during submission: uncertain → reconciled committed; a compensation is proposed; approving it archives the record", async () => {
    await setFaults(world, "crm", { acceptThenTimeout: true });
    const task = await newTask(world, "record, answer lost");
    const record = await scheduleTool(world, task.id, "crm.create_record", RECORD);
    await until("the CRM committed the record (its answer hangs)", () => row("crm_records", record.idempotencyKey));
    await stop(world, task.id);
    await settled(task.id);
    await reconciled(record.id);

    const s = await snapshot(world, task.id);
    checkAgainstWitness(s);
    expect(s.actions).toEqual(["crm:record_created"]);
    expect(await hasEvent(world, record.id, "work_item.uncertain")).toBe(true);
    expect(s.items[0].status).toBe("completed");
    expect(s.sideEffects.map((e) => ({ outcome: e.outcome, reversible: e.reversible }))).toEqual([{ outcome: "committed", reversible: true }]);
    expect(s.summary.orphaned_side_effects.map((e) => e.tool_call_id)).toEqual([record.correlationId]);
    expect(s.summary.user_message).toMatch(/a person decides by \d\d:\d\d UTC whether to reverse it/);
    // "a person decides" must be backed by a review item a person can act on
    const reviews = await until(
      "a proposed compensation for the reconciled record",
      async () => (await snapshot(world, task.id)).reviews.filter((r) => r.kind === "approve_compensation").at(0),
      2_000,
    ).catch(() => undefined);
    expect(reviews, "no approve_compensation review item was opened for the effect found by reconciliation").toBeDefined();
    const decided = await decide(reviews!.id, reviews!.proposal);
    expect(decided).toMatchObject({ compensation: { status: "compensated" } });
    const after = await snapshot(world, task.id);
    expect(after.actions).toEqual(["crm:record_created", "crm:record_archived"]);
    checkAgainstWitness(after);
  });

  it("latency × during submission: the record request is in flight when Stop lands — the summary must not call it cancelled once the CRM creates the record", async () => {
    await setFaults(world, "crm", { latencyMs: 600 });
    const task = await newTask(world, "record, slow CRM");
    const record = await scheduleTool(world, task.id, "crm.create_record", RECORD);
    await until("the checkpoint before the record passed", () => hasEvent(world, record.id, "checkpoint.passed"));
    await sleep(80);
    await stop(world, task.id);
    await settled(task.id);
    await until("the CRM processed the abandoned request", () => row("crm_records", record.idempotencyKey), 3_000);
    await reconciled(record.id);
    await sleep(300);

    const s = await snapshot(world, task.id);
    checkAgainstWitness(s);
    expect(["completed", "uncertain"]).toContain(s.items[0].status);
  });
});

// ---- mailer ------------------------------------------------------------------------------------------

describe("mailer", () => {
  it("before commitment (the draft exists, the checkpoint has not run): the draft is discarded, no email is sent, the summary says 'draft discarded'", async () => {
    gate = installResponseGate();
    const held = gate.hold({ method: "POST", url: /\/mailer\/drafts$/ });
    const task = await newTask(world, "email, stopped before sending");
    const email = await scheduleTool(world, task.id, "mailer.send_email", EMAIL);
    await Promise.race([held.arrived, sleep(5_000).then(() => Promise.reject(new Error("the draft request never arrived")))]);
    await stop(world, task.id);
    await sleep(30); // the AbortSignal fires on the boundary's commit notification
    held.release();
    await settled(task.id);

    const s = await snapshot(world, task.id);
    expect(s.actions).toEqual(["mailer:draft_created", "mailer:draft_discarded"]);
    expect(s.items[0].status).toBe("cancelled_incomplete");
    expect(s.items[0].partialResult).toMatchObject({ discarded: true });
    expect(await hasEvent(world, email.id, "checkpoint.passed")).toBe(false);
    expect(s.sideEffects).toEqual([]);
    expect(s.summary.status).toBe("CANCELLED");
    expect(s.summary.cancelled_tool_calls.map((c) => c.cancellation_status)).toEqual(["CANCELLED_INCOMPLETE"]);
    expect(s.summary.user_message).toBe("Stopped new work. One draft discarded.");
    expect(s.summary.tool_calls[0].outcome.label).toBe("stopped — its draft was discarded before it took effect");
    checkAgainstWitness(s);
  });

  it("latency × during preparation (the draft request is in flight): no draft is left behind in the mailer", async () => {
    await setFaults(world, "mailer", { latencyMs: 400 });
    const task = await newTask(world, "email, slow drafting");
    const email = await scheduleTool(world, task.id, "mailer.send_email", EMAIL);
    await until("the call is running", async () => (await itemRow(world, email.id)).status === "running");
    await sleep(80);
    await stop(world, task.id);
    await settled(task.id);
    await sleep(500); // the mailer finishes the abandoned draft request
    await sleep(300);

    const s = await snapshot(world, task.id);
    checkAgainstWitness(s);
    expect(s.actions).not.toContain("mailer:email_sent");
    const created = s.actions.filter((a) => a === "mailer:draft_created").length;
    const discarded = s.actions.filter((a) => a === "mailer:draft_discarded").length;
    expect({ created, discarded, leftBehind: row<{ id: string; status: string }>("mailer_messages", email.idempotencyKey)?.status ?? null }).toEqual({
      created,
      discarded: created,
      leftBehind: created ? "discarded" : null,
    });
  });

  it("after send: ORPHANED_SIDE_EFFECT — irreversible, reported, a notice for a person; the witness shows email_sent", async () => {
    const task = await newTask(world, "email sent, then Stop");
    const email = await scheduleTool(world, task.id, "mailer.send_email", EMAIL);
    await until("the email was sent", async () => (await itemRow(world, email.id)).status === "completed");
    await stop(world, task.id);
    await settled(task.id);

    const s = await snapshot(world, task.id);
    expect(s.actions).toEqual(["mailer:draft_created", "mailer:email_sent"]);
    expect(s.sideEffects.map((e) => ({ outcome: e.outcome, reversible: e.reversible }))).toEqual([{ outcome: "committed", reversible: false }]);
    expect(s.reviews.map((r) => r.kind)).toEqual(["orphaned_side_effect"]);
    expect(s.summary.status).toBe("PARTIALLY_CANCELLED");
    expect(s.summary.orphaned_side_effects).toEqual([
      { tool_name: "mailer.send_email", tool_call_id: email.correlationId, description: expect.stringMatching(/: took effect — it cannot be undone/) },
    ]);
    expect(s.summary.cancelled_tool_calls).toEqual([]);
    checkAgainstWitness(s);
  });

  it("acceptThenTimeout × during submission: the email went out, the answer was lost — reconciled as sent, reported irreversible with a notice", async () => {
    await setFaults(world, "mailer", { acceptThenTimeout: true });
    const task = await newTask(world, "email, answer lost");
    const email = await scheduleTool(world, task.id, "mailer.send_email", EMAIL);
    await until("the mailer sent the email (its answer hangs)", () => row<{ status: string }>("mailer_messages", email.idempotencyKey)?.status === "sent");
    await stop(world, task.id);
    await settled(task.id);
    await reconciled(email.id);

    const s = await snapshot(world, task.id);
    checkAgainstWitness(s);
    expect(s.actions).toEqual(["mailer:draft_created", "mailer:email_sent"]);
    expect(await hasEvent(world, email.id, "work_item.uncertain")).toBe(true);
    expect(s.items[0].status).toBe("completed");
    expect(s.sideEffects.map((e) => ({ outcome: e.outcome, reversible: e.reversible }))).toEqual([{ outcome: "committed", reversible: false }]);
    expect(s.summary.orphaned_side_effects.map((e) => e.description)).toEqual([expect.stringMatching(/: took effect — it cannot be undone/)]);
    expect(s.summary.cancelled_tool_calls).toEqual([]);
    const notice = await until(
      "a notice for the irreversible email found by reconciliation",
      async () => (await snapshot(world, task.id)).reviews.find((r) => r.kind === "orphaned_side_effect"),
      2_000,
    ).catch(() => undefined);
    expect(notice, "no orphaned_side_effect review item was opened for the email found by reconciliation").toBeDefined();
  });

  it("latency × during submission: the send request is in flight when Stop lands — the summary must not call it cancelled once the mailer sends", async () => {
    await setFaults(world, "mailer", { latencyMs: 500 });
    const task = await newTask(world, "email, slow mailer");
    const email = await scheduleTool(world, task.id, "mailer.send_email", EMAIL);
    await until("the checkpoint before sending passed", () => hasEvent(world, email.id, "checkpoint.passed"), 4_000);
    await sleep(80);
    await stop(world, task.id);
    await settled(task.id);
    await until("the mailer processed the abandoned send", () => row<{ status: string }>("mailer_messages", email.idempotencyKey)?.status === "sent", 3_000);
    await reconciled(email.id);
    await sleep(300);

    const s = await snapshot(world, task.id);
    checkAgainstWitness(s);
    expect(s.actions).toEqual(["mailer:draft_created", "mailer:email_sent"]);
    expect(["completed", "uncertain"]).toContain(s.items[0].status);
  });
});

// ---- one slow commitment request -------------------------------------------------------------------------

describe("latency on the commitment request only (per call, X-Demo-Faults) × during submission", () => {
  it.each([
    { service: "shop", tool: "shop.create_order", input: ORDER, url: /\/shop\/orders$/, committed: (key: string) => !!row("shop_orders", key) },
    { service: "crm", tool: "crm.create_record", input: RECORD, url: /\/crm\/records$/, committed: (key: string) => !!row("crm_records", key) },
    {
      service: "mailer",
      tool: "mailer.send_email",
      input: EMAIL,
      url: /\/mailer\/drafts\/[\w-]+\/send$/,
      committed: (key: string) => row<{ status: string }>("mailer_messages", key)?.status === "sent",
    },
  ])(
    "$service: Stop while the service is still processing the request — withdrawn before it commits (fenced), or, if it commits, never called cancelled",
    async ({ service, tool, input, url, committed }) => {
      gate = installResponseGate();
      gate.injectFaults({ method: "POST", url }, { latencyMs: 600 }); // this request is slow; the service's lookups are not
      const task = await newTask(world, `${tool}, slow commit`);
      const item = await scheduleTool(world, task.id, tool, input);
      await until("the checkpoint before the commitment passed", () => hasEvent(world, item.id, "checkpoint.passed"));
      await sleep(80); // the request has reached the service, which has not committed yet
      await stop(world, task.id);
      await settled(task.id);
      await sleep(800); // the slow request reaches its commit point at the service (refused if it was withdrawn)
      await reconciled(item.id);
      await sleep(300); // more maintenance passes: time to re-ask

      const s = await snapshot(world, task.id);
      checkAgainstWitness(s);
      const fencedAtService = witnessLog(world.demo.db, service as never).some((w) => w.action === "request_fenced" && w.subject === item.idempotencyKey);
      if (committed(item.idempotencyKey)) {
        expect(["completed", "uncertain"]).toContain(s.items[0].status);
      } else {
        // Reconciliation withdrew the request before concluding it never happened; the service refused it.
        expect(fencedAtService).toBe(true);
        expect(s.items[0].status).not.toBe("completed");
      }
    },
  );
});

// ---- reports -----------------------------------------------------------------------------------------

describe("reports", () => {
  const startExport = async (title: string, input: { rows: number; rowMs: number }) => {
    const task = await newTask(world, title, "low");
    const item = await scheduleTool(world, task.id, "reports.export_report", input);
    await until("the export holds its lock and temp file", async () => (await t.database.prisma.resource.count({ where: { workItemId: item.id } })) === 2);
    await sleep(100);
    return { task, item };
  };

  it.each([
    { fault: "no fault", faults: {} },
    { fault: "latency", faults: { latencyMs: 40 } },
  ])("$fault × mid-export: a complete prefix is kept as PARTIAL_RESULT; lock and temp file verified released", async ({ faults }) => {
    await setFaults(world, "reports", faults);
    const { task, item } = await startExport("export, stopped", { rows: 300, rowMs: 10 });
    await stop(world, task.id);
    await settled(task.id);

    const s = await snapshot(world, task.id);
    expect(s.items[0].status).toBe("partial");
    const rows = (s.items[0].partialResult as { rows: string[] }).rows;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(300);
    expect(rows).toEqual(Array.from({ length: rows.length }, (_, i) => `row ${i + 1}`)); // a complete prefix
    expect(s.resources.map((r) => [r.type, r.state, !!r.verifiedAt])).toEqual([
      ["lock", "released", true],
      ["temp_file", "released", true],
    ]);
    expect(s.actions).toEqual(expect.arrayContaining(["reports:export_started", "reports:lock_acquired", "reports:export_cancelled", "reports:lock_released"]));
    expect(s.actions).not.toContain("reports:export_completed");
    expect(s.summary.status).toBe("CANCELLED");
    expect(s.summary.cancelled_tool_calls).toEqual([
      {
        tool_call_id: item.correlationId,
        tool_name: "reports.export_report",
        cancellation_status: "CANCELLED",
        partial_result: { marker: "PARTIAL_RESULT", value: expect.anything() },
        orphaned_resources: [],
      },
    ]);
    expect(s.summary.user_message).toBe("Stopped new work. One partial result kept.");
    checkAgainstWitness(s);
  });

  it("failToRelease × mid-export: lock and temp file orphaned after cleanup + one retry, review items opened, the summary does not claim cleanup", async () => {
    await setFaults(world, "reports", { failToRelease: true });
    const { task, item } = await startExport("export, release fails", { rows: 300, rowMs: 10 });
    await stop(world, task.id);
    await settled(task.id);

    const s = await snapshot(world, task.id);
    expect(s.items[0].status).toBe("partial");
    expect(s.resources.map((r) => [r.type, r.state, !!r.verifiedAt])).toEqual([
      ["lock", "orphaned", true],
      ["temp_file", "orphaned", true],
    ]);
    expect(reviewsOf(s, "orphaned_resource")).toHaveLength(2);
    expect(s.actions).toContain("reports:release_failed");
    expect(s.actions).not.toContain("reports:lock_released");
    const exportId = s.calls[0].subjects[0];
    expect(s.summary.cancelled_tool_calls).toHaveLength(1);
    expect(s.summary.cancelled_tool_calls[0].tool_call_id).toBe(item.correlationId);
    expect(s.summary.cancelled_tool_calls[0].orphaned_resources).toEqual([`lock:${exportId}`, `temp_file:/tmp/stopline-demo-${exportId}.csv`]);
    // named in the JSON as well as counted in the message: the call that held each, its type and handle (defect 3)
    expect(s.summary.orphaned_resources).toEqual([
      { tool_call_id: item.correlationId, tool_name: "reports.export_report", type: "lock", handle: exportId },
      { tool_call_id: item.correlationId, tool_name: "reports.export_report", type: "temp_file", handle: `/tmp/stopline-demo-${exportId}.csv` },
    ]);
    expect(s.summary.status).toBe("PARTIALLY_CANCELLED");
    expect(s.summary.user_message).toMatch(/Two resources could not be released; an operator has been asked to handle them\./);
    checkAgainstWitness(s);
  });

  it("ignoreCancellation × mid-export: the export completes anyway and is reported completed, not cancelled", async () => {
    await setFaults(world, "reports", { ignoreCancellation: true });
    const { task, item } = await startExport("export, cancel ignored", { rows: 40, rowMs: 10 });
    await stop(world, task.id);
    await settled(task.id, 12_000); // the maintenance pass finishes late-settling cancellations (every 5 s per task)

    const s = await snapshot(world, task.id);
    expect(s.actions).toEqual(expect.arrayContaining(["reports:cancel_ignored", "reports:export_completed", "reports:lock_released"]));
    expect(s.actions).not.toContain("reports:export_cancelled");
    expect(s.items[0].status).toBe("completed");
    expect((s.items[0].result as { rows: string[] }).rows).toHaveLength(40);
    expect(s.resources.map((r) => [r.type, r.state])).toEqual([
      ["lock", "released"],
      ["temp_file", "released"],
    ]);
    // Not cancelled: the service acknowledged the cancel and carried on — it could not be stopped, and finished.
    expect(s.summary.cancelled_tool_calls).toEqual([
      {
        tool_call_id: item.correlationId,
        tool_name: "reports.export_report",
        cancellation_status: "UNRECOVERABLE",
        partial_result: null,
        orphaned_resources: [],
      },
    ]);
    expect(s.summary.completed_tool_calls).toEqual([{ tool_call_id: item.correlationId, tool_name: "reports.export_report", status: "completed" }]);
    expect(s.summary.status).toBe("PARTIALLY_CANCELLED");
    expect(s.summary.user_message).toMatch(
      /^Stopped new work\. One step could not be stopped — the service acknowledged the cancel and carried on; it finished (less than a second|\d+ s) after the Stop\.$/,
    );
    checkAgainstWitness(s);
    // The export finished AFTER the Stop (the witness: export_completed later than the boundary); the message
    // must not say it "had already finished" — it ran on because the service ignored the cancellation.
    const completedAt = s.witness.find((w) => w.action === "export_completed")!.at;
    expect(Date.parse(completedAt)).toBeGreaterThan(Date.parse(s.summary.cancel_requested_at));
    expect(s.summary.user_message).not.toMatch(/had already finished/);
  });

  it("cancelUnavailable × mid-export: the cancel fails after retries → uncertain + review; the export runs on and is reported as it really ended", async () => {
    await setFaults(world, "reports", { cancelUnavailable: true });
    const { task, item } = await startExport("export, cancel endpoint down", { rows: 60, rowMs: 10 });
    await stop(world, task.id);
    await settled(task.id, 12_000);
    await until(
      "the export ran to its end",
      () =>
        witnessSince(world, 0, "reports").some(
          (w) => w.action === "export_completed" && w.subject === row<{ id: string }>("report_exports", item.idempotencyKey)?.id,
        ),
      5_000,
    );
    await reconciled(item.id);
    // The ledger learns that the export released its lock and temp file when the engine verifies them after
    // the reconciliation: wait for that rather than for a fixed time (a busy machine takes longer).
    await until(
      "the export's resources verified released",
      async () => (await t.database.prisma.resource.count({ where: { workItemId: item.id, state: "released" } })) === 2,
      10_000,
    );

    const s = await snapshot(world, task.id);
    const cancelStep = (await stepEvents(task.id, item.id)).find((e) => (e.data as { action?: string }).action === "provider_cancel");
    expect(cancelStep?.data).toMatchObject({ success: false });
    expect(cancelStep?.reason).toMatch(/failed after 3 attempts: .*503/);
    expect(await hasEvent(world, item.id, "work_item.uncertain")).toBe(true);
    expect(reviewsOf(s, "resolve_uncertain")).toHaveLength(1);
    expect(s.actions).toEqual(expect.arrayContaining(["reports:export_completed", "reports:lock_released"]));
    expect(s.actions).not.toContain("reports:export_cancelled");
    expect(s.items[0].status).toBe("completed");
    expect(s.summary.status).not.toBe("CANCELLED");
    checkAgainstWitness(s);
    // the export released its lock and temp file itself when it ended: the ledger must not keep calling them orphaned
    expect(s.resources.map((r) => [r.type, r.state])).toEqual([
      ["lock", "released"],
      ["temp_file", "released"],
    ]);
  });
});

// ---- after success, nothing to undo ------------------------------------------------------------------------

describe("Stop after success (no commitment)", () => {
  it("reports and inference finished before the Stop: nothing is called cancelled, resources verified released, nothing for a person", async () => {
    const since = lastWitnessSeq(world);
    const task = await newTask(world, "export and answer, then Stop", "low");
    const exp = await scheduleTool(world, task.id, "reports.export_report", { rows: 5, rowMs: 5 });
    const gen = await scheduleTool(world, task.id, "inference.generate", { prompt: "done?", words: 5, wordMs: 5 });
    await until("both finished", async () => (await itemRow(world, exp.id)).status === "completed" && (await itemRow(world, gen.id)).status === "completed");
    await stop(world, task.id);
    await settled(task.id);
    await until(
      "the export's resources verified",
      async () => (await t.database.prisma.resource.count({ where: { workItemId: exp.id, state: "released" } })) === 2,
      3_000,
    );

    const generations = witnessSince(world, since, "inference")
      .filter((w) => w.action === "generation_started")
      .map((w) => w.subject!);
    const s = await snapshot(world, task.id, { generations });
    expect(s.actions).toEqual(expect.arrayContaining(["reports:export_completed", "reports:lock_released", "inference:generation_completed"]));
    expect(s.summary.cancelled_tool_calls).toEqual([]);
    expect(s.summary.orphaned_side_effects).toEqual([]);
    expect(s.reviews).toEqual([]);
    expect(s.summary.status).toBe("CANCELLED");
    checkAgainstWitness(s);
  });
});

// ---- inference ---------------------------------------------------------------------------------------

describe("inference", () => {
  it("mid-generation: the stream is aborted (witness generation_stopped), the half answer discarded, counted as a generation cancellation", async () => {
    const since = lastWitnessSeq(world);
    const task = await newTask(world, "generate, stopped", "low");
    const gen = await scheduleTool(world, task.id, "inference.generate", { prompt: "plan my order", words: 150, wordMs: 10 });
    const started = await until("the generation started", () => witnessSince(world, since, "inference").find((w) => w.action === "generation_started"));
    await sleep(150);
    await stop(world, task.id);
    await settled(task.id);
    await until(
      "the service ended the generation",
      () => witnessSince(world, since, "inference").some((w) => w.subject === started.subject && w.action !== "generation_started"),
      4_000,
    );

    const s = await snapshot(world, task.id, { generations: [started.subject!] });
    expect(s.items[0].status).toBe("cancelled_incomplete"); // stopped; half an answer is not kept
    expect(s.items[0].result).toBeNull();
    expect(s.summary.cancelled_tool_calls.map((c) => [c.tool_call_id, c.cancellation_status])).toEqual([[gen.correlationId, "CANCELLED_INCOMPLETE"]]);
    expect(s.summary.status).toBe("CANCELLED");
    // counted apart from action cancellations (lib/metrics/cancellation-metrics.ts)
    const metrics = await cancellationMetrics(t.database, { since: task.createdAt });
    expect(metrics.generation_cancellations.count).toBe(1);
    expect(metrics.action_cancellations.stopped.count).toBe(0);
    expect(metrics.action_cancellations.reconciled_or_finished.count).toBe(0);
    // ... and the service must agree that it stopped generating
    checkAgainstWitness(s);
    expect(s.actions).toEqual(["inference:generation_started", "inference:generation_stopped"]);
    expect((s.witness[1].detail as { words: number }).words).toBeLessThan(150);
  });

  it("latency × before the first word: the abandoned generation is stopped by the service, not completed behind the summary's back", async () => {
    await setFaults(world, "inference", { latencyMs: 300 });
    const since = lastWitnessSeq(world);
    const task = await newTask(world, "generate, slow start", "low");
    const gen = await scheduleTool(world, task.id, "inference.generate", { prompt: "plan my order", words: 30, wordMs: 10 });
    await until("the generation request is running", async () => (await itemRow(world, gen.id)).status === "running");
    await sleep(80);
    await stop(world, task.id);
    await settled(task.id);
    const started = await until(
      "the service took the request",
      () => witnessSince(world, since, "inference").find((w) => w.action === "generation_started"),
      2_000,
    );
    await until(
      "the service ended the generation",
      () => witnessSince(world, since, "inference").some((w) => w.subject === started.subject && w.action !== "generation_started"),
      3_000,
    );

    const s = await snapshot(world, task.id, { generations: [started.subject!] });
    expect(s.items[0].status).not.toBe("completed");
    checkAgainstWitness(s);
  });

  it("latency × a request given up on arrives late, while the next task's call is stopped: the generation carries its own call's key, never charged to a call that never started (random conformance, seed 2027 #102)", async () => {
    await setFaults(world, "inference", { latencyMs: 400 });
    const since = lastWitnessSeq(world);
    const first = await newTask(world, "generate, given up during the latency", "low");
    const a = await scheduleTool(world, first.id, "inference.generate", { prompt: "first answer", words: 20, wordMs: 10 });
    await until("the first request is running", async () => (await itemRow(world, a.id)).status === "running");
    await stop(world, first.id);
    await settled(first.id);
    // (The stopped call asks the service by its key whether a reply finished; the request it gave up on may reach the
    // service before or after the next task starts — either way it is the first call's, by its key.)
    expect(
      witnessSince(world, since, "inference").every(
        (w) => w.action !== "generation_started" || (w.detail as { key?: string } | null)?.key === a.idempotencyKey,
      ),
    ).toBe(true);

    const second = await newTask(world, "generate, stopped at once", "low");
    const b = await scheduleTool(world, second.id, "inference.generate", { prompt: "second answer", words: 20, wordMs: 10 });
    await stop(world, second.id);
    await settled(second.id);
    const late = await until(
      "the first request reached the service",
      () => witnessSince(world, since, "inference").find((w) => w.action === "generation_started"),
      3_000,
    );
    await until(
      "the service ended it",
      () => witnessSince(world, since, "inference").some((w) => w.subject === late.subject && w.action !== "generation_started"),
      3_000,
    );

    // The service's own record says whose request it was: the first call's key, not the second's.
    expect(late.detail).toEqual({ key: a.idempotencyKey });
    const keyed = (key: string) =>
      witnessSince(world, since, "inference")
        .filter((w) => w.action === "generation_started" && (w.detail as { key?: string } | null)?.key === key)
        .map((w) => w.subject!);
    const bRow = await itemRow(world, b.id);
    if (bRow.startedAt === null) expect(keyed(b.idempotencyKey)).toEqual([]); // never started: the service saw nothing of it
    checkAgainstWitness(await snapshot(world, second.id, { generations: keyed(b.idempotencyKey) }));
    checkAgainstWitness(await snapshot(world, first.id, { generations: keyed(a.idempotencyKey) }));
  });
});
