import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { CREATE_ORDER_TOOL } from "../../support/http-order-service";
import { testEngine } from "../../../lib/db/scratch-database";
import type { LedgerEvent, TaskDetail } from "../../../lib/sdk/client";
import { CancelledError, ForbiddenError, NotFoundError, StaleIntentError, UnauthorizedError, ValidationError } from "../../../lib/sdk/errors";
import { StoplineClient } from "../../../lib/sdk/index";
import { spawnTsx, type TestProcess } from "../../support/sdk/processes";
import { eventually, sleep, startSdkTestServer, terminal, type SdkTestServer } from "../../support/sdk/server";

/**
 * The SDK against the real app over real HTTP: the route handlers behind a node:http server in this process,
 * the cancellation engine running beside them, and worker PROCESSES that reach the app only through the SDK.
 */

const provider = testEngine();
const SDK_WORKER = path.resolve(import.meta.dirname, "../../../test/support/sdk/sdk-worker.ts");
const LEASE_MS = 1_500;

let s: SdkTestServer;
const processes = new Set<TestProcess>();
beforeAll(async () => {
  s = await startSdkTestServer();
}, 60_000);
afterEach(async () => {
  await Promise.all([...processes].map((p) => p.kill("SIGKILL")));
  processes.clear();
});
afterAll(async () => s?.close());

function spawnWorker(workerId: string, mode: "count" | { order: string } | { hostedOrder: string }): TestProcess {
  const args =
    mode === "count"
      ? [s.http.url, s.tokens.worker, workerId, "count"]
      : "order" in mode
        ? [s.http.url, s.tokens.worker, workerId, "order", mode.order, s.service.url]
        : [s.http.url, s.tokens.worker, workerId, "hosted-order", mode.hostedOrder, s.service.url];
  const p = spawnTsx(workerId, SDK_WORKER, args, { SDK_WORKER_LEASE_MS: String(LEASE_MS) });
  processes.add(p);
  return p;
}

const eventsOf = (workItemId: string) => s.t.database.prisma.ledgerEvent.findMany({ where: { workItemId }, orderBy: { seq: "asc" } });
const ofType = <E extends { type: string }>(events: E[], type: string) => events.filter((e) => e.type === type);
const itemOf = (task: TaskDetail, id: string) => task.workItems.find((w) => w.id === id)!;

async function settledSummary(taskId: string, timeoutMs = 30_000) {
  return eventually(
    async () => {
      const summary = await s.agent.getCancellation(taskId);
      return summary.status === "IN_PROGRESS" ? undefined : summary;
    },
    `the summary of task ${taskId} leaving IN_PROGRESS`,
    timeoutMs,
  );
}

describe(`the SDK client against the real API (${provider})`, () => {
  it("creates a task and work items, presses Stop (idempotent), and reads the summary", async () => {
    const task = await s.agent.createTask({ title: "sdk: three queued steps", conversationId: "sdk-conv" });
    expect(task).toMatchObject({ stage: "active", intentVersion: 1, ownerId: "sdk-agent" });
    const items = [];
    for (const n of [1, 2, 3]) {
      items.push(
        await s.agent.scheduleWorkItem(task.id, {
          kind: "local_worker",
          toolName: "sdk.nobody_serves_this",
          mechanism: "abort_signal",
          intentVersion: task.intentVersion,
          correlationId: `step-${n}`,
          input: { n },
        }),
      );
    }
    expect(items.map((i) => i.status)).toEqual(["queued", "queued", "queued"]);
    // idempotent scheduling: the same correlationId again returns the same item, not a second one
    const again = await s.agent.scheduleWorkItem(task.id, {
      kind: "local_worker",
      toolName: "sdk.nobody_serves_this",
      mechanism: "abort_signal",
      intentVersion: task.intentVersion,
      correlationId: "step-1",
      input: { n: 1 },
    });
    expect(again.id).toBe(items[0].id);
    expect((await s.agent.getTask(task.id)).workItems).toHaveLength(3);
    expect((await s.agent.listTasks({ status: ["active"], conversationId: "sdk-conv" })).tasks.map((t) => t.id)).toContain(task.id);

    // What Stop would do, before it is pressed (writes nothing)
    const preview = await s.agent.stopPreview(task.id);
    expect(preview).toMatchObject({ state: "would_stop", headline: "3 queued steps will never start." });
    if (preview.state === "would_stop")
      expect(preview.children.map((c) => [c.tool_call_id, c.action, c.preview.headed_for])).toEqual([
        ["step-1", "abort", "never_started"],
        ["step-2", "abort", "never_started"],
        ["step-3", "abort", "never_started"],
      ]);

    const stop = await s.agent.cancel(task.id, { reason: "the user pressed Stop" });
    expect(stop).toMatchObject({ kind: "boundary", boundary: { taskId: task.id, intentVersion: 2, alreadyRequested: false } });
    const repeat = await s.agent.cancel(task.id, { reason: "again" });
    expect(repeat).toMatchObject({ kind: "boundary", boundary: { intentVersion: 2, alreadyRequested: true } });
    if (repeat.kind === "boundary" && stop.kind === "boundary") expect(repeat.boundary.cancelRequestedAt).toBe(stop.boundary.cancelRequestedAt);

    // after the boundary nothing new may start
    await expect(
      s.agent.scheduleWorkItem(task.id, { kind: "local_worker", toolName: "x", mechanism: "abort_signal", intentVersion: 1 }),
    ).rejects.toBeInstanceOf(CancelledError);

    expect(await s.agent.stopPreview(task.id)).toMatchObject({ state: "already_requested" });
    const summary = await settledSummary(task.id);
    expect(summary.status).toBe("CANCELLED");
    expect(summary.cancelled_tool_calls.map((c) => [c.tool_call_id, c.cancellation_status]).sort()).toEqual([
      ["step-1", "CANCELLED"],
      ["step-2", "CANCELLED"],
      ["step-3", "CANCELLED"],
    ]);
    expect(summary.user_message).toContain("Three queued steps never started");
    // The summary is settled as soon as every child is; the task's own stage follows in the engine's last step.
    await vi.waitFor(async () => expect((await s.agent.getTask(task.id)).stage).toBe("cancelled"), { timeout: 10_000, interval: 50 });

    // the other read routes parse through their schemas
    expect((await s.agent.listReviewItems({ taskId: task.id })).reviewItems).toEqual([]);
    expect((await s.agent.metrics()).tasks.stopped).toBeGreaterThanOrEqual(1);
  });

  it("maps the API's refusals to typed errors", async () => {
    const task = await s.agent.createTask({ title: "sdk: errors" });
    await expect(s.agent.getTask("no-such-task")).rejects.toBeInstanceOf(NotFoundError);
    await expect(s.agent.getCancellation(task.id)).rejects.toBeInstanceOf(NotFoundError); // no Stop yet
    await expect(s.worker.createTask({ title: "a worker may not" })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(new StoplineClient({ baseUrl: s.http.url, token: "stl_not_a_token" }).listTasks()).rejects.toBeInstanceOf(UnauthorizedError);
    const invalid = await s.agent.createTask({ title: "   " }).catch((e) => e);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect(invalid.issues.map((i: { field: string }) => i.field)).toEqual(["title"]);
    const stale = await s.agent.scheduleWorkItem(task.id, { kind: "local_worker", toolName: "x", mechanism: "abort_signal", intentVersion: 7 }).catch((e) => e);
    expect(stale).toBeInstanceOf(StaleIntentError);
    expect(stale).toMatchObject({ status: 409, code: "stale_intent", details: { preparedIntentVersion: 7, currentIntentVersion: 1 } });
  });

  it("retries a GET through a 503 from the server", async () => {
    const task = await s.agent.createTask({ title: "sdk: retry" });
    s.http.failNext(`/api/tasks/${task.id}`, 503, 2);
    const before = s.http.requests.length;
    expect((await s.agent.getTask(task.id)).id).toBe(task.id);
    expect(s.http.requests.slice(before).map((r) => r.status)).toEqual([503, 503, 200]);
  });
});

describe(`events(): resume after a dropped connection (${provider})`, () => {
  it("reconnects with Last-Event-ID and delivers every event of the task exactly once, in order", async () => {
    const task = await s.agent.createTask({ title: "sdk: events" });
    const schedule = (n: number) =>
      s.agent.scheduleWorkItem(task.id, {
        kind: "local_worker",
        toolName: "sdk.nobody_serves_this",
        mechanism: "abort_signal",
        intentVersion: 1,
        correlationId: `ev-${n}`,
      });
    for (const n of [1, 2]) await schedule(n);

    const follow = new AbortController();
    const got: LedgerEvent[] = [];
    const wake = () => {};
    const reading = (async () => {
      for await (const e of s.agent.events({ taskId: task.id, signal: follow.signal })) {
        got.push(e);
        wake();
      }
    })();
    const until = (n: number) => eventually(async () => (got.length >= n ? true : undefined), `${n} events`, 15_000, 20);
    await until(3); // task.created + 2 scheduled
    const lastBeforeDrop = got.at(-1)!.seq;

    // The reconnection is refused once with 503 and Retry-After: 1 — the client waits, and the events below are
    // committed while it is disconnected.
    const eventsPath = `/api/tasks/${task.id}/events`;
    s.http.failNext(eventsPath, 503, 1, { "retry-after": "1" });
    s.http.dropConnections();
    for (const n of [3, 4, 5]) await schedule(n);
    await s.agent.cancel(task.id, { reason: "stop while the stream is down" });
    const committedWhileDown = Date.now();

    const all = async () => s.t.database.prisma.ledgerEvent.findMany({ where: { taskId: task.id }, orderBy: { seq: "asc" } });
    await settledSummary(task.id);
    const expected = await all();
    await until(expected.length);
    await sleep(300); // anything extra (a duplicate) would arrive now
    follow.abort();
    await reading;

    expect(got.map((e) => e.seq)).toEqual(expected.map((e) => e.seq));
    expect(new Set(got.map((e) => e.seq)).size).toBe(got.length);
    expect(got.map((e) => e.type)).toEqual(expected.map((e) => e.type));

    const subscriptions = s.http.requests.filter((r) => r.path === eventsPath);
    expect(subscriptions.map((r) => r.headers["last-event-id"])).toEqual([undefined, String(lastBeforeDrop), String(lastBeforeDrop)]);
    expect(subscriptions.map((r) => r.status)).toEqual([200, 503, 200]);
    // the resumed connection opened after the missed events were committed: they came from the replay
    expect(subscriptions[2].at).toBeGreaterThanOrEqual(committedWhileDown);
    expect(expected.filter((e) => e.seq > lastBeforeDrop).length).toBeGreaterThanOrEqual(4);
  });
});

describe(`an external worker process on the SDK (${provider})`, () => {
  it("receives Stop through its heartbeat: the counting tool keeps its partial result, the waiting one ends cancelled", async () => {
    const worker = spawnWorker("sdk-count-worker", "count");
    await worker.next("ready");
    const task = await s.agent.createTask({ title: "sdk: stop an external worker" });
    const count = await s.agent.scheduleWorkItem(task.id, {
      kind: "local_worker",
      toolName: "example.slow_count",
      mechanism: "abort_signal",
      intentVersion: 1,
      correlationId: "count",
      input: { to: 100_000, stepMs: 10 },
    });
    const wait = await s.agent.scheduleWorkItem(task.id, {
      kind: "local_worker",
      toolName: "test.wait",
      mechanism: "abort_signal",
      intentVersion: 1,
      correlationId: "wait",
    });
    await worker.next("claimed", 15_000, (m) => m.workItemId === count.id);
    await worker.next("claimed", 15_000, (m) => m.workItemId === wait.id);
    await sleep(400); // let it count a little

    const stop = await s.agent.cancel(task.id, { reason: "stop the external worker" });
    const boundaryAt = stop.kind === "boundary" ? Date.parse(stop.boundary.cancelRequestedAt) : NaN;
    const stopped = await worker.next("stop_requested", 10_000, (m) => m.workItemId === count.id);
    // another process has no commit notification: the Stop arrived with a heartbeat (every 300 ms)
    expect(Number(stopped.at) - boundaryAt).toBeLessThan(3_000);

    const summary = await settledSummary(task.id);
    expect(summary.status).toBe("CANCELLED");
    const byCall = Object.fromEntries(summary.cancelled_tool_calls.map((c) => [c.tool_call_id, c]));
    expect(byCall.count).toMatchObject({ tool_name: "example.slow_count", cancellation_status: "CANCELLED", partial_result: { marker: "PARTIAL_RESULT" } });
    expect((byCall.count.partial_result!.value as { counted: number }).counted).toBeGreaterThan(0);
    expect(byCall.wait).toMatchObject({ tool_name: "test.wait", cancellation_status: "CANCELLED", partial_result: null });

    const detail = await s.agent.getTask(task.id);
    expect(itemOf(detail, count.id)).toMatchObject({ status: "partial", partialComplete: true });
    expect(itemOf(detail, wait.id)).toMatchObject({ status: "cancelled" });
    expect(
      worker.messages
        .filter((m) => m.event === "settled")
        .map((m) => [m.workItemId, m.outcome])
        .sort(),
    ).toEqual(
      [
        [count.id, "partial"],
        [wait.id, "cancelled"],
      ].sort(),
    );
    // reported by the worker over HTTP, as the worker token's principal
    expect(ofType(await eventsOf(count.id), "work_item.finished")[0]).toMatchObject({ actor: "worker:sdk-worker", toState: "partial" });
  }, 60_000);

  it("killed mid-action (after ctx.submitted()) and restarted: the server reconciles through inspect, the restarted worker does not run it again — exactly one order", async () => {
    const task = await s.agent.createTask({ title: "sdk: order two chairs" });
    const item = await s.agent.scheduleWorkItem(task.id, {
      kind: "external_action",
      toolName: CREATE_ORDER_TOOL,
      mechanism: "none",
      commitsEffect: true,
      intentVersion: 1,
      correlationId: "order",
      input: { items: [{ sku: "chair-oak", qty: 2 }] },
    });
    const crashed = spawnWorker("sdk-crashed", { order: "after-submit" });
    const halted = await crashed.next("after-submit");
    expect(halted.workItemId).toBe(item.id);
    expect(await crashed.kill("SIGKILL")).toMatchObject({ signal: "SIGKILL" });

    // The service has the order; the ledger knows it was submitted, not how it ended.
    expect(s.service.created).toHaveLength(1);
    const order = s.service.created[0];
    const atCrash = itemOf(await s.agent.getTask(task.id), item.id);
    expect(atCrash).toMatchObject({ status: "submitted", operationId: order.orderId, leaseOwner: "sdk-crashed" });

    // A restarted worker comes up at once, while the dead worker's lease is still running out.
    const restarted = spawnWorker("sdk-restarted", { order: "never" });
    await restarted.next("ready");
    const settled = await eventually(async () => {
      const w = itemOf(await s.agent.getTask(task.id), item.id);
      return terminal(w.status) ? w : undefined;
    }, "the crashed item to settle");
    await sleep(LEASE_MS); // more claim polls and maintenance passes: a wrongful re-run would show up now

    expect(settled).toMatchObject({ status: "completed", operationId: order.orderId, attempt: 1 });
    expect(settled.result).toEqual({ orderId: order.orderId, version: order.version });
    expect(s.service.created).toHaveLength(1);
    expect(s.service.postsFor(item.idempotencyKey)).toBe(1);
    expect(s.service.lookupsFor(item.idempotencyKey)).toBeGreaterThanOrEqual(1);
    expect(restarted.messages.filter((m) => m.event === "claimed" || m.event === "settled")).toEqual([]);

    const events = await eventsOf(item.id);
    expect(ofType(events, "work_item.claimed").map((e) => e.actor)).toEqual(["worker:sdk-crashed"]);
    expect(ofType(events, "lease.expired")[0]).toMatchObject({ fromState: "submitted", toState: "uncertain" });
    expect(ofType(events, "work_item.reconciled")[0]).toMatchObject({ fromState: "uncertain", toState: "completed" });
    expect(ofType(events, "work_item.finished")).toEqual([]); // no worker reported a result for it
    const detail = await s.agent.getTask(task.id);
    expect(detail.sideEffects).toEqual([expect.objectContaining({ operationId: order.orderId, outcome: "committed", externalRecordId: order.orderId })]);
  }, 60_000);

  it("a tool only its worker processes run (the server has no copy): killed after the service created the order, before submitted(); the restarted worker hosts the tool and the engine reconciles through ITS inspect — completed, the order recorded as the effect, no person asked", async () => {
    const task = await s.agent.createTask({ title: "sdk: hosted order" });
    const item = await s.agent.scheduleWorkItem(task.id, {
      kind: "external_action",
      toolName: "hosted.create_order",
      mechanism: "none",
      commitsEffect: true,
      intentVersion: 1,
      correlationId: "hosted-order",
      input: { items: [{ sku: "lamp", qty: 1 }] },
    });
    const crashed = spawnWorker("sdk-host-crashed", { hostedOrder: "after-post" });
    await crashed.next("after-post");
    await crashed.kill("SIGKILL");
    const order = s.service.created.find((o) => o.idempotencyKey === item.idempotencyKey)!;
    expect(order).toBeDefined(); // the service has it; the ledger has no submission

    const restarted = spawnWorker("sdk-host-restarted", { hostedOrder: "never" });
    await restarted.next("ready");
    const settled = await eventually(
      async () => {
        const w = itemOf(await s.agent.getTask(task.id), item.id);
        return terminal(w.status) ? w : undefined;
      },
      "the crashed item to be reconciled through its host",
      30_000,
    );
    expect(settled).toMatchObject({ status: "completed", attempt: 1 });
    expect(s.service.postsFor(item.idempotencyKey)).toBe(1); // asked, never re-sent
    const detail = await s.agent.getTask(task.id);
    expect(detail.sideEffects).toEqual([expect.objectContaining({ workItemId: item.id, outcome: "committed", externalRecordId: order.orderId })]);
    expect(detail.reviewItems.filter((r) => r.workItemId === item.id && r.kind === "resolve_uncertain")).toEqual([]);
    const asked = await s.t.database.prisma.toolRequest.findMany({ where: { toolName: "hosted.create_order", action: "inspect" } });
    expect(asked.some((r) => r.claimedBy === "sdk-host-restarted" && r.answeredAt)).toBe(true);
    const steps = (await eventsOf(item.id)).filter((e) => e.type === "cancellation.step").map((e) => e.reason ?? "");
    expect(steps.some((r) => /not registered in this process/.test(r))).toBe(false);
  }, 60_000);

  it("the service's answer is lost after the checkpoint: the worker never reports `failed`, it hands the item over as uncertain, reconciliation finds the order — exactly one", async () => {
    const worker = spawnWorker("sdk-survivor", { order: "never" });
    await worker.next("ready");
    s.service.loseNextCreateResponse();
    const task = await s.agent.createTask({ title: "sdk: lost answer" });
    const item = await s.agent.scheduleWorkItem(task.id, {
      kind: "external_action",
      toolName: CREATE_ORDER_TOOL,
      mechanism: "none",
      commitsEffect: true,
      intentVersion: 1,
      correlationId: "order",
      input: { items: [{ sku: "desk", qty: 1 }] },
    });
    const run = await worker.next("settled", 15_000, (m) => m.workItemId === item.id);
    expect(run.outcome).toBe("uncertain");
    const settled = await eventually(async () => {
      const w = itemOf(await s.agent.getTask(task.id), item.id);
      return terminal(w.status) ? w : undefined;
    }, "the item to be reconciled");
    expect(settled.status).toBe("completed");
    const order = s.service.created.find((o) => o.idempotencyKey === item.idempotencyKey)!;
    expect(order).toBeDefined();
    expect(s.service.postsFor(item.idempotencyKey)).toBe(1);
    const events = await eventsOf(item.id);
    expect(ofType(events, "work_item.finished")).toEqual([]);
    // handed over at once (no waiting for the lease to run out)
    expect(ofType(events, "work_item.uncertain")[0]).toMatchObject({ fromState: "running", toState: "uncertain" });
    expect(ofType(events, "work_item.reconciled")[0]).toMatchObject({ toState: "completed" });
  }, 60_000);
});
