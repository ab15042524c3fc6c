import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { confirmProposal, shopPrices, startTurn } from "../../../lib/agent/conversation";
import { MODEL_REPLY_TOOL, modelReplyTool } from "../../../lib/agent/model-reply";
import type { Principal } from "../../../lib/auth/tokens";
import { CancellationEngine } from "../../../lib/cancellation/engine";
import { getCancellationSummary } from "../../../lib/cancellation/get-cancellation-summary";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";
import { startDemoServer, type DemoServer } from "../../../lib/demo/server";
import { witnessLog } from "../../../lib/demo/store";
import { demoTools } from "../../../lib/demo/tools";
import { decideReviewItem } from "../../../lib/review/decide-review-item";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { ToolRegistry } from "../../../lib/tools/registry";
import { WorkerPool } from "../../../lib/workers/worker-pool";
import { utcFormat } from "../../../lib/outcomes/words";

/**
 * Issue 25, part 1 — the model sees the truth. A turn is stopped (mid-order with the order created; mid-export;
 * before a call started); the person then asks "did my order go through?". The demo agent's answer AND what its model
 * is given as the conversation so far (the reply child's input, and the prompt a real model received) carry the
 * ledger's facts: the order id and the pending reversal decision, the rows kept, "cancelled before it started". When
 * the child settles later (here: an operator's decision), the next turn reads the settled words.
 */

let t: TestDatabase;
let demo: DemoServer;
let registry: ToolRegistry;
let engine: CancellationEngine;
let pool: WorkerPool | null = null;
const prompts: string[] = [];
const model = new MockLanguageModelV3({
  doStream: async (options) => {
    prompts.push(JSON.stringify(options.prompt));
    return {
      stream: new ReadableStream({
        start(c) {
          for (const part of [
            { type: "stream-start", warnings: [] },
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: "Here is what happened." },
            { type: "text-end", id: "t" },
            {
              type: "finish",
              finishReason: { unified: "stop", raw: "stop" },
              usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
            },
          ])
            c.enqueue(part);
          c.close();
        },
      }) as never,
    };
  },
});
const oncall: Principal = { id: "test-oncall", name: "oncall", role: "admin" };

beforeAll(async () => {
  t = await createTestDatabase();
  demo = await startDemoServer({ file: ":memory:" });
  registry = new ToolRegistry();
  for (const tool of demoTools({ baseUrl: demo.url, pollMs: 20 })) registry.register(tool);
  registry.register(modelReplyTool(model));
  engine = new CancellationEngine(t.database, {
    registry,
    verifyDelayMs: 20,
    settleTimeoutMs: 1_500,
    reconcileIntervalMs: 100,
    cancelAttempts: 2,
    cancelBackoffMs: 20,
    cancelTimeoutMs: 1_000,
  }).start(100);
});
afterAll(async () => {
  await pool?.stop();
  await engine?.stop();
  await demo?.close();
  await t?.drop();
});

const startPool = () => (pool ??= new WorkerPool({ database: t.database, registry, concurrency: 4, leaseMs: 10_000, pollMs: 20 }).start());
const until = async <T>(what: string, check: () => Promise<T | undefined | null | false>, ms = 20_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};
// The agent's price read, asked once more if the shop's answer takes longer than its 5 s timeout (a loaded machine):
// the prices are not what these tests are about.
const agent = { prices: (skus: string[]) => shopPrices(demo.url)(skus).catch(() => shopPrices(demo.url)(skus)) };
const asker = { ...agent, replyTool: MODEL_REPLY_TOOL };
const say = (conversationId: string, text: string, options = agent) =>
  startTurn(t.database, options, { ownerId: "alice", conversationId, text, actor: "user:alice" });
const settled = (taskId: string) =>
  until(`the Stop of ${taskId} settled`, async () => {
    const s = await getCancellationSummary(t.database, taskId);
    return s.status !== "IN_PROGRESS" && s;
  });
const setFaults = async (service: string, faults: Record<string, unknown>) => {
  const res = await fetch(`${demo.url}/${service}/faults`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(faults) });
  expect(res.ok).toBe(true);
};
/** What the reply's model was given (the ledger's record of its input), and — once it ran — the prompt it received. */
async function modelInput(taskId: string, mark: number) {
  const reply = await t.database.prisma.workItem.findFirstOrThrow({ where: { taskId, kind: "model_request" } });
  const input = reply.input as { messages?: unknown[] };
  await until(
    "the reply to be written by the model",
    async () => (await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: reply.id } })).status === "completed",
  );
  const received = prompts.slice(mark).join("\n");
  return { stored: JSON.stringify(input.messages), received };
}

describe("after a Stop, the next turn reads what really happened", () => {
  it("Stop mid-order (the order is created): 'did my order go through?' — the answer and the model's input name the order and the pending reversal decision; after the operator's decision, the next turn reads it", async () => {
    startPool();
    const c = "c-order";
    const turn = await say(c, "order a lamp");
    await until(
      "the stock check to end",
      async () => (await t.database.prisma.workItem.findFirstOrThrow({ where: { taskId: turn.taskId, toolName: "shop.check_stock" } })).status === "completed",
    );
    await setFaults("shop", { acceptThenTimeout: true }); // the shop commits the order; its answer never comes
    await confirmProposal(t.database, { taskId: turn.taskId, proposalVersion: 1, actor: "user:alice" });
    const orderId = await until("the shop to create the order", async () => witnessLog(demo.db, "shop").find((w) => w.action === "order_created")?.subject);
    await requestCancellation(t.database, { taskId: turn.taskId, reason: "the user pressed Stop", actor: "user:alice" });
    const summary = await settled(turn.taskId);
    await setFaults("shop", {});
    const review = await t.database.prisma.reviewItem.findFirstOrThrow({ where: { taskId: turn.taskId, kind: "approve_compensation" } });
    const decision = `a person decides by ${utcFormat.time(review.deadline.getTime())} whether to reverse it`;
    expect(summary.user_message).toContain(`One action took effect; ${decision}.`); // the person's words…

    let mark = prompts.length;
    const question = await say(c, "did my order go through?", asker);
    expect(question.intent).toBe("question");
    // …are the agent's answer…
    expect(question.reply).toContain(`shop.create_order — took effect: order ${orderId} (1 × lamp, €35.00) went through; ${decision}.`);
    expect(question.reply).not.toMatch(/cancelled before|stopped before/);
    // …and what its model reads (stored as the call's input, and received by the model)
    const input = await modelInput(question.taskId, mark);
    for (const seen of [input.stored, input.received]) {
      expect(seen).toContain(orderId);
      expect(seen).toContain(decision);
    }
    expect(await t.database.prisma.workItem.count({ where: { taskId: question.taskId, toolName: "shop.create_order" } })).toBe(0); // it orders nothing again

    // an operator decides (keep the order): the history's entry is updated, and the next turn reads it
    await decideReviewItem(t.database, registry, oncall, { reviewItemId: review.id, decision: "reject", reason: "the customer wants the lamp" });
    mark = prompts.length;
    const again = await say(c, "did my order go through?", asker);
    expect(again.reply).toContain(
      `shop.create_order — took effect: order ${orderId} (1 × lamp, €35.00) went through; kept: a person decided not to reverse it.`,
    );
    const later = await modelInput(again.taskId, mark);
    expect(later.stored).toContain("kept: a person decided not to reverse it");
    expect(later.received).toContain("kept: a person decided not to reverse it");
    // the order's tool result itself was rewritten (the earlier answer stays what it was: words said at their time)
    const results = JSON.parse(later.stored)
      .filter((m: { role: string }) => m.role === "tool")
      .flatMap((m: { content: unknown[] }) => m.content);
    const orderResult = results.find((r: { toolCallId: string }) => r.toolCallId === "proposal-v1-order");
    expect(orderResult.output.value).toBe(`took effect: order ${orderId} (1 × lamp, €35.00) went through; kept: a person decided not to reverse it`);
  }, 60_000);

  it("Stop mid-export: 'did the export finish?' — the rows kept, as the reports service recorded them", async () => {
    startPool();
    const c = "c-export";
    const turn = await say(c, "export a report of 2000 rows");
    const exportId = await until("the export to be writing rows", async () => {
      const begun = witnessLog(demo.db, "reports")
        .filter((w) => w.action === "export_started")
        .at(-1);
      if (!begun) return undefined;
      const row = (await (await fetch(`${demo.url}/reports/exports/${begun.subject}`)).json()) as { rowsWritten: number };
      return row.rowsWritten > 20 ? begun.subject : undefined;
    });
    await requestCancellation(t.database, { taskId: turn.taskId, reason: "the user pressed Stop", actor: "user:alice" });
    await settled(turn.taskId);
    const cancelled = witnessLog(demo.db, "reports").find((w) => w.subject === exportId && w.action === "export_cancelled");
    const rows = (cancelled!.detail as { rowsWritten: number }).rowsWritten;
    const kept = `stopped; ${rows.toLocaleString("en-US")} rows kept (partial)`;

    const mark = prompts.length;
    const question = await say(c, "did the export finish?", asker);
    expect(question.reply).toContain(`reports.export_report — ${kept}.`);
    const input = await modelInput(question.taskId, mark);
    expect(input.stored).toContain(kept);
    expect(input.received).toContain(kept);
  }, 60_000);

  it("a late success: an export whose service acknowledged the cancel and carried on — asked again once it finished, the next turn reads the summary's words for it", async () => {
    startPool();
    await setFaults("reports", { ignoreCancellation: true });
    const c = "c-late";
    const before = witnessLog(demo.db, "reports").filter((w) => w.action === "export_started").length;
    const turn = await say(c, "export a report of 150 rows"); // 150 rows × 20 ms
    const exportId = await until("the export to be writing rows", async () => {
      const begun = witnessLog(demo.db, "reports").filter((w) => w.action === "export_started");
      if (begun.length === before) return undefined;
      const row = (await (await fetch(`${demo.url}/reports/exports/${begun.at(-1)!.subject}`)).json()) as { rowsWritten: number };
      return row.rowsWritten > 10 ? begun.at(-1)!.subject : undefined;
    });
    await requestCancellation(t.database, { taskId: turn.taskId, reason: "the user pressed Stop", actor: "user:alice" });
    await settled(turn.taskId);
    const first = await say(c, "did the export finish?");
    // whichever the ledger says at that moment: still running, or finished after the Stop — never "stopped"
    expect(first.reply).toMatch(/reports\.export_report — (could not be stopped|not stopped yet|finished)/);
    await until("the export to finish at the service", async () =>
      witnessLog(demo.db, "reports").some((w) => w.subject === exportId && w.action === "export_completed"),
    );
    await until(
      "the ledger to record it finished",
      async () =>
        (await t.database.prisma.workItem.findFirstOrThrow({ where: { taskId: turn.taskId, toolName: "reports.export_report" } })).status === "completed",
    );
    await setFaults("reports", {});
    const label = (await getCancellationSummary(t.database, turn.taskId)).tool_calls.find((x) => x.tool_name === "reports.export_report")!.outcome.label;
    expect(label).toMatch(/finished .* after the Stop/);
    const mark = prompts.length;
    const again = await say(c, "did the export finish?", asker);
    expect(again.reply).toContain(`reports.export_report — ${label}.`);
    const input = await modelInput(again.taskId, mark);
    expect(input.stored).toContain(label);
    expect(input.received).toContain(label);
  }, 60_000);

  it("Stop before the export started: 'did the export finish?' — cancelled before it started", async () => {
    await pool?.stop(); // nothing claims the export: the Stop finds it queued
    pool = null;
    const c = "c-queued";
    const exportsBefore = witnessLog(demo.db, "reports").filter((w) => w.action === "export_started").length;
    const turn = await say(c, "export a report of 500 rows");
    await requestCancellation(t.database, { taskId: turn.taskId, reason: "the user pressed Stop", actor: "user:alice" });
    await settled(turn.taskId);
    startPool();
    const mark = prompts.length;
    const question = await say(c, "did the export finish?", asker);
    expect(question.reply).toContain("reports.export_report — cancelled before it started — it had no effect.");
    const input = await modelInput(question.taskId, mark);
    expect(input.stored).toContain("cancelled before it started");
    expect(input.received).toContain("cancelled before it started");
    expect(witnessLog(demo.db, "reports").filter((w) => w.action === "export_started")).toHaveLength(exportsBefore); // it never reached the service
  }, 60_000);
});
