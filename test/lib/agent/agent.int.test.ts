import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CancellationEngine } from "../../../lib/cancellation/engine";
import { getCancellationSummary } from "../../../lib/cancellation/get-cancellation-summary";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";
import { cancelQueued } from "../../../lib/cancellation/steps/2-remove-queued";
import { startDemoServer, type DemoServer } from "../../../lib/demo/server";
import { witnessLog } from "../../../lib/demo/store";
import { demoTools } from "../../../lib/demo/tools";
import { AppError } from "../../../lib/errors";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { ToolRegistry } from "../../../lib/tools/registry";
import { WorkerPool } from "../../../lib/workers/worker-pool";
import { confirmProposal, editProposal, shopPrices, startTurn } from "../../../lib/agent/conversation";
import { NothingToSettle, settleTurn, startTurnSettler } from "../../../lib/agent/settle-turn";
import { createTask } from "../../../lib/ledger/create-task";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";

let t: TestDatabase;
let demo: DemoServer;
let registry: ToolRegistry;
let engine: CancellationEngine;
beforeAll(async () => {
  t = await createTestDatabase();
  demo = await startDemoServer({ file: ":memory:" });
  registry = new ToolRegistry();
  for (const tool of demoTools({ baseUrl: demo.url, pollMs: 20 })) registry.register(tool);
  engine = new CancellationEngine(t.database, { registry, verifyDelayMs: 20, settleTimeoutMs: 1_000, reconcileIntervalMs: 200 }).start(200);
});
afterAll(async () => {
  await engine?.stop();
  await demo?.close();
  await t?.drop();
});

const agent = () => ({ prices: shopPrices(demo.url) });
const until = async (check: () => Promise<boolean>, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 25));
  }
};
const orders = () => witnessLog(demo.db, "shop").filter((w) => w.action === "order_created");

describe("the demo agent prepares, asks, and only then commits", () => {
  it("a turn is not ended while it is still being prepared: the stock check ends before the proposal and the reply exist", async () => {
    const pool = new WorkerPool({ database: t.database, registry, concurrency: 4, leaseMs: 10_000 }).start();
    try {
      let settledMeanwhile: unknown = "not asked";
      const slowPrices: ReturnType<typeof agent>["prices"] = async (skus) => {
        // the agent is still working out the price: the stock check it scheduled has already ended
        const [task] = await t.database.prisma.task.findMany({ where: { conversationId: "c-prep" } });
        await until(
          async () => (await t.database.prisma.workItem.findFirstOrThrow({ where: { taskId: task.id, toolName: "shop.check_stock" } })).status === "completed",
        );
        settledMeanwhile = await settleTurn(t.database, task.id); // what the turn settler does when a child ends
        return shopPrices(demo.url)(skus);
      };
      const turn = await startTurn(
        t.database,
        { prices: slowPrices },
        { ownerId: "alice", conversationId: "c-prep", text: "order two chairs", actor: "user:alice" },
      );
      expect(settledMeanwhile).toBeNull();
      expect(turn.proposal).toMatchObject({ type: "order", version: 1 });
      const task = await t.database.prisma.task.findUniqueOrThrow({ where: { id: turn.taskId }, include: { workItems: true } });
      expect(task.stage).toBe("active"); // waiting for the person's confirmation, not "completed"
      expect(task.workItems.map((i) => i.toolName).sort()).toEqual(["inference.generate", "shop.check_stock"]);
      // once the reply has ended it still waits for the confirmation: a proposal nobody confirmed ends nothing
      await until(async () => (await t.database.prisma.workItem.count({ where: { taskId: turn.taskId, status: { in: ["queued", "running"] } } })) === 0);
      expect(await settleTurn(t.database, turn.taskId)).toBeNull();
      expect((await t.database.prisma.task.findUniqueOrThrow({ where: { id: turn.taskId } })).stage).toBe("active");
    } finally {
      await pool.stop();
    }
  });

  it("order two chairs → a proposal with items and amount; nothing is ordered before confirmation", async () => {
    const turn = await startTurn(t.database, agent(), { ownerId: "alice", conversationId: "c-1", text: "order two chairs", actor: "user:alice" });
    expect(turn.proposal).toMatchObject({ type: "order", version: 1, items: [{ sku: "chair", quantity: 2, unitCents: 6000 }], amountCents: 12000 });
    expect(turn.reply).toMatch(/2 × chair for €120\.00\. Please confirm/);
    const items = await t.database.prisma.workItem.findMany({ where: { taskId: turn.taskId } });
    expect(items.map((i) => i.toolName).sort()).toEqual(["inference.generate", "shop.check_stock"]);
    expect(orders()).toHaveLength(0);
  });

  it("a turn is not ended between scheduling its commitments and recording the confirmation: a quick commitment that ends first does not end the turn", async () => {
    const turn = await startTurn(t.database, agent(), { ownerId: "alice", conversationId: "c-confirming", text: "order two chairs", actor: "user:alice" });
    const pool = new WorkerPool({ database: t.database, registry, concurrency: 4, leaseMs: 10_000 }).start();
    try {
      // what confirmProposal does first: the commitment, bound to the confirmed version — it runs and ends…
      const order = await scheduleWorkItem(
        t.database,
        {
          taskId: turn.taskId,
          kind: "external_action",
          correlationId: "proposal-v1-order",
          toolName: "shop.create_order",
          mechanism: "provider_cancel",
          commitsEffect: true,
          intentVersion: 1,
          proposalVersion: 1,
          input: { items: [{ sku: "chair", quantity: 2 }] },
        },
        "user:alice",
      );
      await until(
        async () => (await t.database.prisma.workItem.count({ where: { taskId: turn.taskId, status: { in: ["queued", "running", "submitted"] } } })) === 0,
      );
      expect((await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: order.id } })).status).toBe("completed");
      // …before the confirmation (and any later commitment of it) is recorded: the turn is not over yet
      expect(await settleTurn(t.database, turn.taskId)).toBeNull();
      expect((await t.database.prisma.task.findUniqueOrThrow({ where: { id: turn.taskId } })).stage).toBe("active");
      const again = await confirmProposal(t.database, { taskId: turn.taskId, proposalVersion: 1, actor: "user:alice" });
      expect(again).toMatchObject({ alreadyConfirmed: true, workItems: [order.id] });
    } finally {
      await pool.stop();
    }
  });

  it("a confirmation for two chairs cannot commit three after an edit: the checkpoint refuses, the shop sees no order", async () => {
    const before = orders().length;
    const turn = await startTurn(t.database, agent(), { ownerId: "alice", conversationId: "c-2", text: "order two chairs", actor: "user:alice" });
    const confirmed = await confirmProposal(t.database, { taskId: turn.taskId, proposalVersion: 1, actor: "user:alice" });
    // the person edits the proposal before the order was committed
    const edited = await editProposal(t.database, agent(), {
      taskId: turn.taskId,
      items: [{ sku: "chair", quantity: 3 }],
      expectedVersion: 1,
      actor: "user:alice",
    });
    expect(edited).toMatchObject({ version: 2, amountCents: 18000 });
    const pool = new WorkerPool({ database: t.database, registry, concurrency: 4, leaseMs: 10_000 }).start();
    try {
      const orderItem = confirmed.workItems[0];
      await until(async () =>
        ["failed", "cancelled", "completed"].includes((await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: orderItem } })).status),
      );
      const row = await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: orderItem } });
      expect(row.status).toBe("failed");
      expect(row.error).toMatch(/confirmed proposal version 1, but the task's proposal is at 2/);
      expect(await t.database.prisma.ledgerEvent.count({ where: { workItemId: orderItem, type: "checkpoint.rejected" } })).toBe(1);
      expect(orders().length).toBe(before); // nothing reached the shop
    } finally {
      await pool.stop();
    }
  });

  it("confirming a version that is no longer current is refused with the current proposal", async () => {
    const turn = await startTurn(t.database, agent(), { ownerId: "alice", conversationId: "c-3", text: "buy 2 mugs", actor: "user:alice" });
    await editProposal(t.database, agent(), { taskId: turn.taskId, items: [{ sku: "mug", quantity: 5 }], expectedVersion: 1, actor: "user:alice" });
    const refused = await confirmProposal(t.database, { taskId: turn.taskId, proposalVersion: 1, actor: "user:alice" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe("stale_intent");
    expect((refused as AppError).message).toMatch(/you confirmed proposal version 1, but it is now version 2/);
    expect(await t.database.prisma.workItem.count({ where: { taskId: turn.taskId, toolName: "shop.create_order" } })).toBe(0);
  });

  it("confirmed and committed, then Stop: the order is reported as committed with a compensation proposal", async () => {
    const before = orders().length;
    const turn = await startTurn(t.database, agent(), { ownerId: "alice", conversationId: "c-4", text: "order a lamp", actor: "user:alice" });
    const confirmed = await confirmProposal(t.database, { taskId: turn.taskId, proposalVersion: 1, actor: "user:alice" });
    const pool = new WorkerPool({ database: t.database, registry, concurrency: 4, leaseMs: 10_000 }).start();
    try {
      await until(async () => (await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: confirmed.workItems[0] } })).status === "completed");
      await requestCancellation(t.database, { taskId: turn.taskId, reason: "user pressed Stop", actor: "user:alice" });
      await until(async () => (await t.database.prisma.task.findUniqueOrThrow({ where: { id: turn.taskId } })).stage === "cancelled");
      const summary = await getCancellationSummary(t.database, turn.taskId);
      expect(summary.status).toBe("PARTIALLY_CANCELLED");
      expect(summary.orphaned_side_effects[0].description).toMatch(
        /^order ord_\w+ \(1 × lamp, €35\.00\): took effect — a person decides by \d\d:\d\d UTC whether to reverse it$/,
      );
      expect(summary.user_message).toMatch(/One action took effect; a person decides by \d\d:\d\d UTC whether to reverse it\./);
      expect(orders().length).toBe(before + 1);
      const review = await t.database.prisma.reviewItem.findFirstOrThrow({ where: { taskId: turn.taskId } });
      expect(review.kind).toBe("approve_compensation");
    } finally {
      await pool.stop();
    }
  });
});

describe("confirming is idempotent", () => {
  it("a confirmation sent twice (a retried request, a second tab) schedules one order, and the shop sees one", async () => {
    const before = orders().length;
    const turn = await startTurn(t.database, agent(), { ownerId: "alice", conversationId: "c-5", text: "order a desk", actor: "user:alice" });
    const [first, second] = await Promise.all([
      confirmProposal(t.database, { taskId: turn.taskId, proposalVersion: 1, actor: "user:alice" }),
      confirmProposal(t.database, { taskId: turn.taskId, proposalVersion: 1, actor: "user:alice" }),
    ]);
    expect(second.workItems).toEqual(first.workItems);
    expect([first.alreadyConfirmed, second.alreadyConfirmed].sort()).toEqual([false, true]);
    expect(await t.database.prisma.workItem.count({ where: { taskId: turn.taskId, toolName: "shop.create_order" } })).toBe(1);
    const pool = new WorkerPool({ database: t.database, registry, concurrency: 4, leaseMs: 10_000 }).start();
    try {
      await until(async () => (await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: first.workItems[0] } })).status === "completed");
      expect(orders().length).toBe(before + 1);
    } finally {
      await pool.stop();
    }
  });
});

describe("the turn settler reads only what a turn needs", () => {
  it("a task that is not a turn (an SDK's, an API client's) is remembered as such after one read of the task; a turn is not", async () => {
    const sdkTask = await createTask(t.database, { title: "an SDK's task", ownerId: "sdk" }, "system:test");
    const known = new NothingToSettle();
    expect(await settleTurn(t.database, sdkTask.id, known)).toBeNull();
    expect(known.has(sdkTask.id)).toBe(true);

    const turn = await startTurn(t.database, agent(), { ownerId: "ann", conversationId: "c-known", text: "order two chairs", actor: "user:ann" });
    expect(await settleTurn(t.database, turn.taskId, known)).toBeNull(); // still waiting for the person's confirmation
    expect(known.has(turn.taskId)).toBe(false);

    // Stopped, the turn is never the settler's to end (a boundary is never withdrawn): it is remembered, not read again.
    await requestCancellation(t.database, { taskId: turn.taskId, reason: "user pressed Stop", actor: "user:ann" });
    expect(await settleTurn(t.database, turn.taskId, known)).toBeNull();
    expect(known.has(turn.taskId)).toBe(true);
  });

  it("the settler skips a stopped task's burst of endings: its boundary event says there is nothing to settle", async () => {
    const turn = await startTurn(t.database, agent(), { ownerId: "bo", conversationId: "c-burst", text: "order two chairs", actor: "user:bo" });
    const reads: string[] = [];
    const watched = t.database.prisma.$extends({
      query: {
        task: {
          findUnique: ({ args, query }) => {
            reads.push(String(args.where.id));
            return query(args);
          },
        },
      },
    });
    const stopSettler = startTurnSettler({ ...t.database, prisma: watched } as unknown as typeof t.database, { sweepMs: 60_000 });
    try {
      await new Promise((r) => setTimeout(r, 100)); // the settler's first sweep
      const queued = (await t.database.prisma.workItem.findMany({ where: { taskId: turn.taskId, status: "queued" }, select: { id: true } })).map((w) => w.id);
      expect(queued.length).toBeGreaterThan(0);
      reads.length = 0;
      await requestCancellation(t.database, { taskId: turn.taskId, reason: "user pressed Stop", actor: "user:bo" });
      // The Stop's queued children leave dispatch — here, or first by the file's engine, which hears the same boundary
      // (the race this test used to assert on): endings the settler hears, and used to answer with a read of the task.
      await cancelQueued(t.database, turn.taskId);
      await until(async () => (await t.database.prisma.workItem.count({ where: { id: { in: queued }, status: "cancelled" } })) === queued.length);
      await new Promise((r) => setTimeout(r, 300));
      expect(reads.filter((id) => id === turn.taskId)).toEqual([]);
    } finally {
      await stopSettler();
    }
  });

  it("the set of known non-turns is bounded: the oldest leaves first", () => {
    const known = new NothingToSettle(3);
    for (const id of ["a", "b", "c", "d"]) known.add(id);
    expect(["a", "b", "c", "d"].map((id) => known.has(id))).toEqual([false, true, true, true]);
  });
});
