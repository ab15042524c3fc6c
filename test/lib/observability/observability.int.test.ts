import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "../../../lib/auth/tokens";
import { CancellationEngine } from "../../../lib/cancellation/engine";
import { getCancellationSummary } from "../../../lib/cancellation/get-cancellation-summary";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";
import { createTask } from "../../../lib/ledger/create-task";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { call, json } from "../../support/api-client";
import { startJobServer, type JobServer } from "../../../lib/conformance/http-job-server";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import type { ToolDefinition } from "../../../lib/tools/contract";
import { httpJobTool } from "../../../lib/tools/adapters/http-job";
import { ToolRegistry } from "../../../lib/tools/registry";
import { WorkerPool } from "../../../lib/workers/worker-pool";
import { stopTrace, taskTrace, toolCallSpan, traceparentOf } from "../../../lib/observability/ids";
import { observeLedger } from "../../../lib/observability/ledger-observer";
import { scrapeResponse } from "../../../lib/observability/scrape";
import { flushTracing, startTracing, stopTracing } from "../../../lib/observability/tracing";

/**
 * Metrics and traces of real Stops, as an on-call team receives them: a real OTLP/HTTP receiver on 127.0.0.1 (the
 * JSON encoding of OTLP, OTEL_EXPORTER_OTLP_PROTOCOL=http/json) gets the spans the exporter sends; the Prometheus
 * scrape is the route's own answer. The Stop runs through the real engine and worker pool against a real HTTP job
 * service, on SQLite and PostgreSQL.
 */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  status?: { code?: number };
}

const attrs = (list: { key: string; value: Record<string, unknown> }[] = []) => Object.fromEntries(list.map((a) => [a.key, Object.values(a.value)[0]]));

/** A small OTLP/HTTP (JSON) trace receiver: what it was sent, span by span. */
async function otlpReceiver() {
  const spans: OtlpSpan[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      contentTypes.push(String(req.headers["content-type"]));
      if (req.method === "POST" && req.url === "/v1/traces") {
        const doc = JSON.parse(body) as {
          resourceSpans: {
            scopeSpans: { spans: (Omit<OtlpSpan, "attributes" | "events"> & { attributes?: never; events?: { name: string; attributes?: never }[] })[] }[];
          }[];
        };
        for (const rs of doc.resourceSpans)
          for (const ss of rs.scopeSpans)
            for (const s of ss.spans) {
              spans.push({ ...s, attributes: attrs(s.attributes), events: (s.events ?? []).map((e) => ({ name: e.name, attributes: attrs(e.attributes) })) });
            }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, contentTypes, close: () => new Promise((r) => server.close(r)) };
}

const ENGINE = { verifyDelayMs: 20, settleTimeoutMs: 2_000, cancelAttempts: 2, cancelBackoffMs: 10, cancelTimeoutMs: 2_000 };
let t: TestDatabase;
let jobs: JobServer;
let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
let engine: CancellationEngine;
let pool: WorkerPool;
let stopObserving: () => void;
/** The traceparent header of every request the HTTP job adapter sent, by method and path. */
const sent: { request: string; traceparent: string | null }[] = [];
const released = new Set<string>();

function tools() {
  const job = httpJobTool({
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
    fetch: (url, init) => {
      const headers = new Headers(init?.headers);
      sent.push({ request: `${init?.method ?? "GET"} ${new URL(String(url)).pathname}`, traceparent: headers.get("traceparent") });
      return fetch(url, init);
    },
  });
  const cooperative: ToolDefinition<unknown, unknown> = {
    name: "local.summarise",
    kind: "local_worker",
    risk: "low",
    commitsEffect: false,
    mechanism: "abort_signal",
    run: async (_input, ctx) => {
      await ctx.holdResource("temp_file", `/tmp/${ctx.workItemId}`);
      await new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true }));
    },
    cleanup: async (r) => void released.add(r.handle),
    verifyReleased: async (r) => released.has(r.handle),
  };
  const neverServed: ToolDefinition<unknown, unknown> = {
    name: "local.later",
    kind: "local_worker",
    risk: "low",
    commitsEffect: false,
    mechanism: "abort_signal",
    run: async () => null,
  };
  return { job, cooperative, neverServed };
}

beforeAll(async () => {
  [t, jobs, receiver] = await Promise.all([createTestDatabase(), startJobServer({ cancelMode: "honour" }), otlpReceiver()]);
  t.install();
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
  process.env.OTEL_EXPORTER_OTLP_PROTOCOL = "http/json";
  process.env.OTEL_SERVICE_NAME = "stopline-test";
  process.env.STOPLINE_METRICS_TOKEN = "scrape-secret-for-tests-only";
  expect(await startTracing()).toBe(`traces: OTLP http/json to ${receiver.url}`);
  stopObserving = observeLedger(t.database);
  const { job, cooperative, neverServed } = tools();
  const served = new ToolRegistry().register(job).register(cooperative);
  pool = new WorkerPool({ database: t.database, registry: served, concurrency: 4, pollMs: 20 }).start();
  engine = new CancellationEngine(t.database, { registry: new ToolRegistry().register(job).register(cooperative).register(neverServed), ...ENGINE }).start(
    60_000,
  );
});
afterAll(async () => {
  await pool?.stop();
  await engine?.stop();
  stopObserving?.();
  await stopTracing();
  for (const k of ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_SERVICE_NAME", "STOPLINE_METRICS_TOKEN"]) delete process.env[k];
  await Promise.all([jobs?.close(), receiver?.close()]);
  await t?.drop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function waitFor<T>(probe: () => Promise<T> | T, what: string, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
const item = (id: string) => t.database.prisma.workItem.findUniqueOrThrow({ where: { id } });

/** A task with a running HTTP job, a running cooperative child holding a temp file, and a queued child; then Stop. */
async function stoppedTask(title: string) {
  const { job, cooperative, neverServed } = tools();
  const task = await createTask(t.database, { title, ownerId: "alice", riskLevel: "low" }, "agent:test");
  const schedule = (tool: ToolDefinition<any, any>, input: unknown) =>
    scheduleWorkItem(
      t.database,
      { taskId: task.id, kind: tool.kind, toolName: tool.name, mechanism: tool.mechanism, commitsEffect: tool.commitsEffect, intentVersion: 1, input },
      "agent:test",
    );
  const jobChild = await schedule(job, { steps: 1_000, stepMs: 20 });
  const localChild = await schedule(cooperative, {});
  const queuedChild = await schedule(neverServed, {});
  await waitFor(async () => (await item(jobChild.id)).status === "submitted", "the job's submission");
  await waitFor(async () => (await t.database.prisma.resource.count({ where: { workItemId: localChild.id } })) === 1, "the cooperative child's temp file");
  await requestCancellation(t.database, { taskId: task.id, reason: "user pressed Stop", actor: "user:alice" });
  await new Promise((r) => setImmediate(r));
  await engine.run(task.id);
  await waitFor(async () => (await t.database.prisma.task.findUniqueOrThrow({ where: { id: task.id } })).settledAt, "the Stop's settlement");
  return { task, jobChild: await item(jobChild.id), localChild: await item(localChild.id), queuedChild };
}

describe("traces: one Stop is one trace, exported over OTLP", () => {
  it("the receiver gets the Stop's trace — root, boundary, plan, each child's stop action with its answer, verification, settlement — and each tool call as a span of the task's trace, whose traceparent reached the job service", async () => {
    const { task, jobChild, localChild, queuedChild } = await stoppedTask("traced research");
    const summary = await getCancellationSummary(t.database, task.id);
    const stop = stopTrace({ taskId: task.id });
    await waitFor(async () => {
      await flushTracing();
      return receiver.spans.some((s) => s.traceId === stop.traceId && s.name === "stopline.stop");
    }, "the Stop's root span at the receiver");
    expect(receiver.contentTypes.every((c) => c.startsWith("application/json"))).toBe(true);

    const inStop = receiver.spans.filter((s) => s.traceId === stop.traceId);
    const named = (name: string) => inStop.filter((s) => s.name === name);
    const [root] = named("stopline.stop");
    expect(root.spanId).toBe(stop.spanId);
    expect(root.parentSpanId ?? "").toBe("");
    expect(root.attributes).toMatchObject({
      "stopline.task_id": task.id,
      "stopline.stop.status": summary.status,
      "stopline.stop.children": 3,
      "stopline.stop.user_message": summary.user_message,
    });
    expect(named("stopline.stop.boundary")).toHaveLength(1);
    expect(named("stopline.stop.plan")).toHaveLength(1);
    expect(named("stopline.stop.verification").length).toBeGreaterThanOrEqual(1);
    expect(named("stopline.stop.settlement")).toHaveLength(1);
    // Every step hangs off the root: one trace, one tree.
    for (const s of inStop.filter((s) => s !== root)) expect(s.parentSpanId, s.name).toBe(stop.spanId);

    // Each running child's stop action, with the service's answer (or the runner's) as events on its span.
    const childSpans = named("stopline.stop.child");
    // The job is stopped by the engine (its provider cancel); the cooperative child stopped on its AbortSignal at the
    // boundary's commit, before the pass looked — its stop is in its own call's span, which the root links to.
    expect(childSpans.map((s) => s.attributes["stopline.work_item_id"])).toContain(jobChild.id);
    expect(childSpans.every((s) => [jobChild.id, localChild.id].includes(s.attributes["stopline.work_item_id"] as string))).toBe(true);
    const jobStop = childSpans.find((s) => s.attributes["stopline.work_item_id"] === jobChild.id)!;
    expect(jobStop.attributes).toMatchObject({ "stopline.tool": "research.background_response", "stopline.action": "abort" });
    expect(jobStop.events.map((e) => [e.name, e.attributes["stopline.step.success"]])).toContainEqual(["stopline.step.provider_cancel", true]);
    const localStop = childSpans.find((s) => s.attributes["stopline.work_item_id"] === localChild.id);
    if (localStop) expect(localStop.events.map((e) => e.name)).toContain("stopline.step.abort");
    // Verification: the temp file's cleanup and its re-query, as events.
    const verified = named("stopline.stop.verification").flatMap((s) => s.events.map((e) => [e.name, e.attributes["stopline.step.success"]]));
    expect(verified).toEqual(
      expect.arrayContaining([
        ["stopline.step.cleanup", true],
        ["stopline.step.verify_release", true],
      ]),
    );
    // The settlement names every child's outcome in the one vocabulary.
    const outcomes = Object.fromEntries(
      named("stopline.stop.settlement")[0].events.map((e) => [e.attributes["stopline.work_item_id"], e.attributes["stopline.outcome"]]),
    );
    const byCall = Object.fromEntries([jobChild, localChild, queuedChild].map((c) => [c.correlationId, c.id]));
    expect(outcomes).toEqual(Object.fromEntries(summary.tool_calls.map((c) => [byCall[c.tool_call_id], c.outcome.kind])));
    expect(outcomes[queuedChild.id]).toBe("never_started");

    // Tool calls: spans of the task's trace, under its root, with the ids the runners propagated.
    const taskIds = taskTrace(task.id);
    await waitFor(async () => {
      await flushTracing();
      return receiver.spans.filter((s) => s.traceId === taskIds.traceId && s.name === "stopline.tool_call").length >= 2;
    }, "both tool calls' spans");
    const calls = receiver.spans.filter((s) => s.traceId === taskIds.traceId && s.name === "stopline.tool_call");
    for (const child of [jobChild, localChild]) {
      const span = calls.find((s) => s.attributes["stopline.work_item_id"] === child.id)!;
      expect(span.spanId).toBe(toolCallSpan(child).spanId);
      expect(span.parentSpanId).toBe(taskIds.spanId);
      expect(span.attributes).toMatchObject({ "stopline.tool": child.toolName, "stopline.work_item.status": child.status });
      expect(span.events.map((e) => [e.name, e.attributes["stopline.stop.trace_id"]])).toContainEqual(["stopline.stop_requested", stop.traceId]);
    }
    expect(calls.find((s) => s.attributes["stopline.work_item_id"] === localChild.id)!.attributes["stopline.work_item.status"]).toBe("cancelled");
    const rootLinks = (root as unknown as { links?: { traceId: string; spanId: string }[] }).links ?? [];
    expect(rootLinks.map((l) => l.spanId)).toEqual(expect.arrayContaining([taskIds.spanId, toolCallSpan(jobChild).spanId, toolCallSpan(localChild).spanId]));
    // What the job service was sent: the tool call's traceparent on its start; the Stop's on the engine's cancel.
    expect(sent.find((r) => r.request === "POST /jobs")?.traceparent).toBe(traceparentOf(toolCallSpan(jobChild)));
    const cancel = sent.find((r) => r.request === `POST /jobs/${jobChild.operationId}/cancel`)!;
    expect(cancel.traceparent).toBe(`00-${stop.traceId}-${jobStop.spanId}-01`);
  });
});

describe("metrics: the Prometheus scrape", () => {
  const scrape = async (token?: string) =>
    scrapeResponse(t.database, new Request("http://localhost/metrics", { headers: token ? { authorization: `Bearer ${token}` } : {} }));
  const value = (text: string, series: string) => {
    const line = text.split("\n").find((l) => l.startsWith(`${series} `));
    return line ? Number(line.slice(series.length + 1)) : 0;
  };

  it("GET /metrics - what this process did (Stops requested and settled, time to settle, children by outcome, tool calls per tool) and the ledger's state (queue depth per tool, unsettled Stops, open reviews, leases, kill switches); a token is required", async () => {
    expect((await scrape()).status).toBe(401);
    const worker = (await createApiToken(t.database, { name: "scrape-worker", role: "worker" })).token;
    const refused = await scrape(worker);
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.message).toMatch(/a worker token cannot read metrics: send Authorization: Bearer <STOPLINE_METRICS_TOKEN>/);

    const before = await (await scrape("scrape-secret-for-tests-only")).text();
    const { task } = await stoppedTask("metered research");
    const summary = await getCancellationSummary(t.database, task.id);
    // A queued item of a tool nobody serves, and a remote worker's claim through the API (with its traceparent).
    const waiting = await createTask(t.database, { title: "waiting", ownerId: "bob" }, "agent:test");
    await scheduleWorkItem(
      t.database,
      { taskId: waiting.id, kind: "local_worker", toolName: "remote.crunch", mechanism: "abort_signal", intentVersion: 1 },
      "agent:test",
    );
    await scheduleWorkItem(
      t.database,
      { taskId: waiting.id, kind: "local_worker", toolName: "remote.crunch", mechanism: "abort_signal", intentVersion: 1 },
      "agent:test",
    );
    const claimed = await json(await call("POST", "/api/workers/claim", { token: worker, body: { workerId: "remote-1", toolNames: ["remote.crunch"] } }));
    expect(claimed.workItem.traceparent).toBe(traceparentOf(toolCallSpan(claimed.workItem)));

    const res = await scrape("scrape-secret-for-tests-only");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const after = await res.text();
    const delta = (series: string) => value(after, series) - value(before, series);
    expect(delta('stopline_stops_requested_total{level="task"}')).toBe(1);
    expect(delta(`stopline_stops_settled_total{level="task",status="${summary.status}"}`)).toBe(1);
    expect(delta('stopline_stop_settle_seconds_count{level="task"}')).toBe(1);
    for (const kind of new Set(summary.tool_calls.map((c) => c.outcome.kind))) {
      expect(delta(`stopline_stop_children_total{outcome="${kind}"}`)).toBe(summary.tool_calls.filter((c) => c.outcome.kind === kind).length);
    }
    expect(delta('stopline_tool_calls_started_total{tool="research.background_response"}')).toBe(1);
    expect(delta('stopline_tool_calls_started_total{tool="remote.crunch"}')).toBe(1);
    expect(value(after, 'stopline_queue_depth{tool="remote.crunch"}')).toBe(1);
    expect(value(after, 'stopline_work_items_leased{tool="remote.crunch"}')).toBe(1);
    expect(value(after, "stopline_stops_unsettled")).toBe(0);
    expect(value(after, 'stopline_kill_switches_on{target_kind="tool"}')).toBe(0);
    // The engine's maintenance leader (1 while its lease is unexpired; a loaded machine may catch it between renewals).
    expect(after).toMatch(/^stopline_lease_holder\{lease="maintenance",holder="[^"]+"\} [01]$/m);
    expect(after).toMatch(/^stopline_lease_expires_in_seconds\{lease="maintenance"\} -?[\d.]+$/m);
    expect(after).toMatch(/^stopline_review_items_open\{kind="approve_compensation"\} \d+$/m);
    expect(value(after, "stopline_ledger_scrape_error")).toBe(0);
    expect(after).toMatch(/^# TYPE stopline_stop_settle_seconds histogram$/m);
    expect(after).toMatch(/^stopline_process_cpu_seconds_total \d/m);
  });
});
