import { stepCountIs, streamText, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";
import { createApiToken } from "../../../lib/auth/tokens";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChatHandler } from "../../../examples/ai-sdk/agent";
import { startDemoServer, type DemoServer } from "../../../lib/demo/server";
import { setFaults } from "../../../lib/demo/faults";
import { witnessLog } from "../../../lib/demo/store";
import { StoplineClient } from "../../../lib/sdk/index";
import { createStopline, stoplineContext, type StopContract } from "../../../lib/sdk/ai";
import { eventually, sleep, startSdkTestServer, terminal, type SdkTestServer } from "../../support/sdk/server";

/**
 * The AI SDK integration (lib/sdk/ai.ts) through the example Next.js route (examples/ai-sdk): a real
 * `streamText` multi-step loop driven by the AI SDK's mock model, its tools calling the real demo services, every
 * generation and tool call a work item on the real API over HTTP (with the cancellation engine running). Stop is
 * pressed through the API while the loop is inside a slow tool; the summary is judged against what the reports
 * service itself recorded (its witness log).
 */

let s: SdkTestServer;
let demo: DemoServer;
let admin: StoplineClient;
beforeAll(async () => {
  [s, demo] = await Promise.all([startSdkTestServer(), startDemoServer({ file: ":memory:" })]);
  admin = new StoplineClient({ baseUrl: s.http.url, token: s.tokens.admin, retry: { baseDelayMs: 20, maxDelayMs: 200 } });
}, 60_000);
afterAll(async () => {
  await demo?.close();
  await s?.close();
});

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
/** One streamed model step: a tool call, or text. */
function step(part: { toolCallId: string; toolName: string; input: unknown } | { text: string }) {
  const parts: unknown[] = [{ type: "stream-start", warnings: [] }];
  if ("text" in part) parts.push({ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: part.text }, { type: "text-end", id: "t" });
  else parts.push({ type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, input: JSON.stringify(part.input) });
  parts.push({ type: "finish", finishReason: { unified: "text" in part ? "stop" : "tool-calls", raw: undefined }, usage });
  return {
    stream: new ReadableStream({
      start(c) {
        for (const p of parts) c.enqueue(p);
        c.close();
      },
    }),
  };
}

describe("AI SDK: a multi-step tool loop, stopped mid-tool", () => {
  it("Stop from the API while exportReport runs: the loop ends, the model is not asked again, the export is cancelled at the service, and the summary matches the service's record", async () => {
    const steps = [
      step({ toolCallId: "call-stock", toolName: "checkStock", input: { sku: "chair" } }),
      step({ toolCallId: "call-export", toolName: "exportReport", input: { rows: 2_000, rowMs: 5 } }),
      step({ text: "Here is your report." }),
    ];
    const model = new MockLanguageModelV3({ provider: "mock", modelId: "agent", doStream: async () => steps.shift()! });
    const POST = createChatHandler({ client: admin, model, demoUrl: demo.url });

    const response = await POST(
      new Request("http://app/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message: "export a report of 2000 rows" }),
      }),
    );
    expect(response.status).toBe(200);
    const taskId = response.headers.get("x-stopline-task")!;
    expect(taskId).toBeTruthy();
    const reading = (async () => {
      let text = "";
      for await (const chunk of response.body!.pipeThrough(new TextDecoderStream())) text += chunk;
      return text;
    })();

    // mid-tool: the export is running at the service (rows are being written)
    const exportId = await eventually(
      async () => {
        const started = witnessLog(demo.db, "reports").find((w) => w.action === "export_started");
        if (!started) return undefined;
        const row = (await (await fetch(`${demo.url}/reports/exports/${started.subject}`)).json()) as { rowsWritten: number };
        return row.rowsWritten > 20 ? started.subject! : undefined;
      },
      "the export to be writing rows",
      15_000,
      20,
    );

    const stop = await admin.cancel(taskId, { reason: "the user pressed Stop" });
    expect(stop.kind).toBe("boundary");
    await reading; // the streamed reply ends (the loop was aborted)

    const summary = await eventually(
      async () => {
        const current = await admin.getCancellation(taskId);
        return current.status === "IN_PROGRESS" ? undefined : current;
      },
      "the cancellation to settle",
      20_000,
    ).catch(async (error: Error) => {
      const d = await admin.getTask(taskId);
      throw new Error(`${error.message}; task ${d.stage}, items ${JSON.stringify(d.workItems.map((w) => [w.toolName, w.status]))}`);
    });

    // what the reports service recorded: the export was cancelled, after N rows — never completed
    const record = witnessLog(demo.db, "reports").filter((w) => w.subject === exportId);
    expect(record.map((w) => w.action)).toContain("export_cancelled");
    expect(record.map((w) => w.action)).not.toContain("export_completed");
    const rowsWritten = (record.find((w) => w.action === "export_cancelled")!.detail as { rowsWritten: number }).rowsWritten;
    expect(rowsWritten).toBeGreaterThan(0);
    expect(rowsWritten).toBeLessThan(2_000);

    // the ledger: two generations (completed), the stock read (completed), the export stopped with the service's prefix
    const detail = await admin.getTask(taskId);
    const byName = (name: string) => detail.workItems.filter((w) => w.toolName === name);
    expect(byName("model:mock:agent").map((w) => [w.kind, w.status])).toEqual([
      ["model_request", "completed"],
      ["model_request", "completed"],
    ]);
    expect(byName("checkStock").map((w) => [w.correlationId, w.status])).toEqual([["call-stock", "completed"]]);
    const exp = byName("exportReport")[0];
    expect(exp).toMatchObject({ correlationId: "call-export", mechanism: "provider_cancel", status: "partial", operationId: exportId });
    expect(exp.partialResult).toEqual({ exportId, rowsWritten });
    // the model was never asked for a third step after the Stop
    expect(model.doStreamCalls).toHaveLength(2);

    // the summary says exactly that, and nothing more
    expect(summary.status).toBe("CANCELLED");
    expect(summary.cancelled_tool_calls).toEqual([
      expect.objectContaining({
        tool_call_id: "call-export",
        tool_name: "exportReport",
        cancellation_status: "CANCELLED",
        partial_result: { marker: "PARTIAL_RESULT", value: { exportId, rowsWritten } },
      }),
    ]);
    expect(summary.uncertain_tool_calls).toEqual([]);
    expect(summary.orphaned_side_effects).toEqual([]);
  }, 60_000);

  it("'settled' means final: while the tool's own stop contract runs in the agent's process (seconds, against a slow service), the summary stays IN_PROGRESS; its first other answer is the last one", async () => {
    const steps = [
      step({ toolCallId: "call-export-slow", toolName: "exportReport", input: { rows: 2_000, rowMs: 5 } }),
      step({ text: "Here is your report." }),
    ];
    const model = new MockLanguageModelV3({ provider: "mock", modelId: "agent", doStream: async () => steps.shift()! });
    const POST = createChatHandler({ client: admin, model, demoUrl: demo.url });
    const response = await POST(
      new Request("http://app/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message: "export a report of 2000 rows" }),
      }),
    );
    const taskId = response.headers.get("x-stopline-task")!;
    const reading = (async () => {
      for await (const _ of response.body!.pipeThrough(new TextDecoderStream())) void _;
    })();
    await eventually(
      async () => (await admin.getTask(taskId)).workItems.find((w) => w.toolName === "exportReport" && w.operationId) ?? undefined,
      "the export to be submitted",
      15_000,
      20,
    );

    // Every call to the reports service now takes 700 ms: the wrapper's cancel and inspect take seconds.
    setFaults(demo.db, "reports", { latencyMs: 700 });
    try {
      await admin.cancel(taskId, { reason: "the user pressed Stop" });
      const seen: string[] = [];
      let first: Awaited<ReturnType<typeof admin.getCancellation>> | undefined;
      while (!first) {
        const current = await admin.getCancellation(taskId);
        seen.push(current.status);
        if (current.status !== "IN_PROGRESS") first = current;
        else await sleep(20);
      }
      await reading;
      const final = await eventually(
        async () => ((await admin.getTask(taskId)).workItems.every((w) => terminal(w.status)) ? admin.getCancellation(taskId) : undefined),
        "every step to end",
        30_000,
      );
      const outcomes = (summary: typeof final) => summary.tool_calls.map((c) => [c.tool_call_id, c.status, c.outcome.kind]);
      expect(final.status).toBe("CANCELLED");
      expect(first.status).toBe(final.status);
      expect(outcomes(first)).toEqual(outcomes(final));
      expect(first.uncertain_tool_calls).toEqual([]);
      expect(seen.filter((x) => x === "IN_PROGRESS").length).toBeGreaterThan(10); // it did wait for the agent's own stop path
      expect(await s.t.database.prisma.reviewItem.count({ where: { taskId } })).toBe(0);
    } finally {
      setFaults(demo.db, "reports", {});
    }
  }, 60_000);

  it("an order the service creates after the Stop, by a call that never said submitted(): its own inspect (in the agent's process) finds it, it is recorded as a side effect with the reversal offered; a person approves and the agent's compensate cancels it at the shop", async () => {
    type Order = { orderId: string; status: string; version: number; createdVersion: number; items: { sku: string; quantity: number }[] };
    const shop = async <T>(
      method: string,
      path: string,
      body?: unknown,
      headers: Record<string, string> = {},
      signal?: AbortSignal,
    ): Promise<{ status: number; json: T }> => {
      const res = await fetch(`${demo.url}${path}`, {
        method,
        headers: { ...(body ? { "content-type": "application/json" } : {}), ...headers },
        body: body ? JSON.stringify(body) : undefined,
        signal,
      });
      return { status: res.status, json: (await res.json()) as T };
    };
    // The agent's tool: places an order and never says submitted(); the shop takes 1.5 s, and refuses the withdrawal.
    const placeOrder = tool({
      description: "Place an order",
      inputSchema: z.object({ sku: z.string(), quantity: z.number().int() }),
      execute: async ({ sku, quantity }, options) => {
        const ctx = stoplineContext(options)!;
        return (
          await shop<Order>(
            "POST",
            "/shop/orders",
            { idempotencyKey: ctx.idempotencyKey, items: [{ sku, quantity }] },
            { "x-demo-faults": JSON.stringify({ latencyMs: 1_500 }) },
            options.abortSignal,
          )
        ).json;
      },
    });
    const contract: StopContract = {
      mechanism: "provider_cancel",
      commitsEffect: true,
      risk: "high",
      async cancel(ref) {
        const r = await shop("POST", "/shop/fence", { idempotencyKey: ref.idempotencyKey }, { "x-demo-faults": JSON.stringify({ cancelUnavailable: true }) });
        if (r.status !== 200) throw new Error(`the shop refused the cancel (${r.status})`);
      },
      async inspect(ref) {
        const r = await shop<Order>("GET", `/shop/orders?idempotencyKey=${encodeURIComponent(ref.idempotencyKey)}`);
        if (r.status === 404 || r.json.status === "cancelled") return { status: "not_committed" };
        return {
          status: "committed",
          externalRecordId: r.json.orderId,
          externalVersion: String(r.json.createdVersion),
          currentVersion: String(r.json.version),
          description: `order ${r.json.orderId}`,
          result: r.json,
        };
      },
      async compensate(effect, expectedVersion) {
        const current = (await shop<Order>("GET", `/shop/orders/${effect.externalRecordId}`)).json;
        if (String(current.version) !== expectedVersion) return { status: "conflict", currentVersion: String(current.version), detail: "changed since" };
        await shop("POST", `/shop/orders/${current.orderId}/cancel`);
        const after = (await shop<Order>("GET", `/shop/orders/${current.orderId}`)).json;
        return after.status === "cancelled"
          ? { status: "compensated", detail: `order ${current.orderId} cancelled` }
          : { status: "failed", detail: `the order is ${after.status}` };
      },
    };
    const stopline = createStopline({ client: admin, workerId: "agent-hosting-orders" });
    try {
      const task = await stopline.startTask({ title: "order a chair" });
      const model = new MockLanguageModelV3({
        provider: "mock",
        modelId: "agent",
        doStream: async () => step({ toolCallId: "call-order", toolName: "placeOrder", input: { sku: "chair", quantity: 1 } }),
      });
      const loop = streamText({
        prompt: "order a chair",
        model: stopline.wrapModel(task, model),
        tools: stopline.wrapTools(task, { placeOrder: { tool: placeOrder, stop: contract } }),
        abortSignal: task.signal,
        stopWhen: stepCountIs(2),
      });
      const consumed = Promise.resolve(loop.consumeStream()).catch(() => {});
      await eventually(
        async () => (await admin.getTask(task.id)).workItems.find((w) => w.toolName === "placeOrder" && w.status === "running"),
        "the order call to be in flight",
        15_000,
        20,
      );
      await sleep(300);
      await admin.cancel(task.id, { reason: "the user pressed Stop" });
      const stoppedAt = Date.now();
      await consumed;

      const summary = await admin.waitForCancellation(task.id, { timeoutMs: 30_000 });
      const order = (
        await shop<Order>(
          "GET",
          `/shop/orders?idempotencyKey=${encodeURIComponent((await admin.getTask(task.id)).workItems.find((w) => w.toolName === "placeOrder")!.idempotencyKey)}`,
        )
      ).json;
      const created = witnessLog(demo.db, "shop").find((w) => w.subject === order.orderId && w.action === "order_created")!;
      expect(new Date(created.at).getTime()).toBeGreaterThan(stoppedAt); // the shop created it after the Stop
      const detail = await admin.getTask(task.id);
      const call = detail.workItems.find((w) => w.toolName === "placeOrder")!;
      expect(call.status).toBe("completed");
      expect(detail.sideEffects).toEqual([
        expect.objectContaining({ workItemId: call.id, outcome: "committed", externalRecordId: order.orderId, reversible: true }),
      ]);
      const reviews = detail.reviewItems.filter((r) => r.workItemId === call.id);
      expect(reviews.map((r) => [r.kind, r.status])).toEqual([["approve_compensation", "open"]]);
      expect(summary.orphaned_side_effects.map((e) => e.tool_call_id)).toEqual(["call-order"]);
      expect(summary.uncertain_tool_calls).toEqual([]);

      // Another person approves the reversal; the compensation runs in the agent's process (its host), not the server's.
      const approver = new StoplineClient({
        baseUrl: s.http.url,
        token: (await createApiToken(s.t.database, { name: "approver", role: "admin" })).token,
        retry: false,
      });
      const review = await s.t.database.prisma.reviewItem.findUniqueOrThrow({ where: { id: reviews[0].id } });
      const proposal = review.proposal as { target: string; expectedVersion: string };
      const decided = await approver.call("decideReviewItem", {
        params: { id: review.id },
        body: { decision: "approve", target: proposal.target, expectedVersion: proposal.expectedVersion, reason: "the user did not want it" },
      });
      expect(JSON.stringify(decided)).toMatch(/compensated/);
      expect((await shop<Order>("GET", `/shop/orders/${order.orderId}`)).json.status).toBe("cancelled");
      const hostAnswers = await s.t.database.prisma.toolRequest.findMany({ where: { toolName: "placeOrder" }, orderBy: { createdAt: "asc" } });
      expect(hostAnswers.map((r) => [r.action, r.claimedBy])).toContainEqual(["compensate", "agent-hosting-orders"]);
      task.close();
    } finally {
      await stopline.close();
    }
  }, 60_000);

  it("bad input to the example route: 400 naming the field, no task created", async () => {
    const before = (await admin.listTasks({})).tasks.length;
    const model = new MockLanguageModelV3({ provider: "mock", modelId: "agent" });
    const POST = createChatHandler({ client: admin, model, demoUrl: demo.url });
    const response = await POST(
      new Request("http://app/api/chat", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message: "" }) }),
    );
    expect(response.status).toBe(400);
    expect((await response.json()).error.field).toBe("message");
    expect((await admin.listTasks({})).tasks.length).toBe(before);
  });
});

describe("POST /api/tasks/{taskId}/work-items/start (inline work items)", () => {
  it("schedules and leases in one step; refused after the Stop (nothing starts) and for bad input (nothing written); agent tokens may not run work", async () => {
    const task = await admin.createTask({ title: "inline" });
    const item = await s.worker.startWorkItem(task.id, {
      kind: "remote_tool",
      toolName: "inline.tool",
      mechanism: "abort_signal",
      intentVersion: task.intentVersion,
      correlationId: "inline-1",
      workerId: "me",
    });
    expect(item).toMatchObject({ status: "running", leaseOwner: "me", correlationId: "inline-1" });
    expect(item.leaseToken).toBeTruthy();
    expect((await s.worker.heartbeat(item.id, { leaseToken: item.leaseToken })).cancelRequested).toBe(false);
    // a pool of another process cannot claim it: it was never queued for anyone else
    expect(await s.worker.claim({ workerId: "other", toolNames: ["inline.tool"] })).toBeNull();

    const bad = await s.worker
      .startWorkItem(task.id, { kind: "remote_tool", toolName: "inline.tool", mechanism: "abort_signal", intentVersion: task.intentVersion, workerId: "" })
      .catch((e) => e);
    expect(bad).toMatchObject({ status: 400 });
    const agent = await s.agent
      .startWorkItem(task.id, { kind: "remote_tool", toolName: "inline.tool", mechanism: "abort_signal", intentVersion: task.intentVersion, workerId: "me" })
      .catch((e) => e);
    expect(agent).toMatchObject({ status: 403 });

    await admin.cancel(task.id, { reason: "stop" });
    const late = await s.worker
      .startWorkItem(task.id, { kind: "remote_tool", toolName: "inline.tool", mechanism: "abort_signal", intentVersion: task.intentVersion, workerId: "me" })
      .catch((e) => e);
    expect(late).toMatchObject({ status: 409, code: "cancel_requested" });
    expect((await admin.getTask(task.id)).workItems.map((w) => w.correlationId)).toEqual(["inline-1"]);
  });
});
