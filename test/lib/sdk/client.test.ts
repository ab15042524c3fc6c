import { describe, expect, it } from "vitest";
import { contract } from "../../../lib/api/contract";
import { StoplineClient, type LedgerEvent } from "../../../lib/sdk/client";
import {
  CancelledError,
  ConflictError,
  ForbiddenError,
  InvalidResponseError,
  NetworkError,
  NotFoundError,
  StaleIntentError,
  StaleLeaseError,
  StoplineError,
  UnauthorizedError,
  ValidationError,
} from "../../../lib/sdk/errors";
import { backoffDelay, parseRetryAfter, resolveRetry } from "../../../lib/sdk/retry";
import {
  aLedgerEvent,
  aTask,
  aTaskDetail,
  aWorkItem,
  apiError,
  connectionError,
  json,
  scriptedFetch,
  sseEvent,
  sseResponse,
  type Step,
} from "../../support/sdk/fixtures";

const BASE = "http://stopline.test";

function clientWith(steps: Step[], options: { retries?: number; timeoutMs?: number; maxRetryAfterMs?: number } = {}) {
  const script = scriptedFetch(steps);
  const delays: number[] = [];
  const client = new StoplineClient({
    baseUrl: `${BASE}/`,
    token: "stl_test",
    fetch: script.fetch,
    timeoutMs: options.timeoutMs,
    retry: {
      retries: options.retries ?? 4,
      baseDelayMs: 200,
      maxDelayMs: 5_000,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
      random: () => 0.5,
      sleep: async (ms) => void delays.push(ms),
    },
  });
  return { client, delays, ...script };
}

const networkReset = () => Object.assign(new TypeError("fetch failed"), { cause: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }) });

describe("requests are built from the contract", () => {
  it("fills the path, sends the method, the bearer token and the JSON body the contract names", async () => {
    const { client, requests } = clientWith([
      json(202, {
        kind: "boundary",
        boundary: {
          taskId: "t/1",
          intentVersion: 2,
          cancelRequestedAt: "2026-12-01T10:00:00.000Z",
          reason: "stop",
          requestedBy: "agent:a",
          alreadyRequested: false,
        },
      }),
    ]);
    const answer = await client.cancel("t/1", { reason: "stop" });
    expect(answer.kind).toBe("boundary");
    expect(requests).toEqual([
      expect.objectContaining({
        method: contract.cancelTask.method,
        url: `${BASE}/api/tasks/t%2F1/cancel`,
        body: { reason: "stop" },
        headers: expect.objectContaining({ authorization: "Bearer stl_test", "content-type": "application/json" }),
      }),
    ]);
  });

  it("sends queries (a list of stages comma-separated) and no body on GET", async () => {
    const { client, requests } = clientWith([json(200, { tasks: [], nextCursor: null })]);
    await client.listTasks({ status: ["cancel_requested", "cancelled"], limit: 10 });
    expect(requests[0].url).toBe(`${BASE}/api/tasks?limit=10&status=cancel_requested%2Ccancelled`);
    expect(requests[0].method).toBe("GET");
    expect(requests[0].body).toBeUndefined();
  });

  it("claim returns the claimed item with its lease token, or null", async () => {
    const { client } = clientWith([json(200, { workItem: { ...aWorkItem({ status: "running" }), leaseToken: "lease-1" } }), json(200, { workItem: null })]);
    expect((await client.claim({ workerId: "w1", toolNames: ["example.slow_count"] }))?.leaseToken).toBe("lease-1");
    expect(await client.claim({ workerId: "w1" })).toBeNull();
  });
});

describe("retries", () => {
  it("retries a GET on 503 and 502 with exponential backoff and jitter, then returns the parsed answer", async () => {
    const { client, delays, requests } = clientWith([apiError(503, "unavailable"), new Response("bad gateway", { status: 502 }), json(200, aTaskDetail())]);
    const task = await client.getTask("task_1");
    expect(task.id).toBe("task_1");
    expect(requests).toHaveLength(3);
    // random() = 0.5 under ceilings 200·2⁰ and 200·2¹
    expect(delays).toEqual([100, 200]);
  });

  it("retries on network errors and 408/429 too; gives up after the configured retries with the last error", async () => {
    const { client, delays, requests } = clientWith([
      networkReset(),
      apiError(408, "timeout"),
      apiError(429, "rate_limited"),
      apiError(500, "internal"),
      apiError(500, "internal"),
    ]);
    const error = await client.getCancellation("task_1").catch((e) => e);
    expect(error).toBeInstanceOf(StoplineError);
    expect(error).toMatchObject({ status: 500, code: "internal", attempts: 5 });
    expect(requests).toHaveLength(5);
    expect(delays).toEqual([100, 200, 400, 800]);
  });

  it("the backoff ceiling grows exponentially up to maxDelayMs; jitter spans [0, ceiling)", () => {
    const policy = resolveRetry({ baseDelayMs: 100, maxDelayMs: 1_000, random: () => 0.999 });
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffDelay(n, policy))).toEqual([99, 199, 399, 799, 999, 999]);
    expect(backoffDelay(3, { ...policy, random: () => 0 })).toBe(0);
  });

  it("honours Retry-After in seconds: waits exactly that long when it is longer than the backoff", async () => {
    const { client, delays } = clientWith([apiError(429, "rate_limited", "slow down", {}, { "retry-after": "3" }), json(200, { reviewItems: [] })]);
    await client.listReviewItems();
    expect(delays).toEqual([3_000]);
  });

  it("honours Retry-After as an HTTP date", async () => {
    const when = new Date(Date.now() + 10_000).toUTCString();
    const { client, delays } = clientWith([apiError(503, "unavailable", "maintenance", {}, { "retry-after": when }), json(200, aTaskDetail())]);
    await client.getTask("task_1");
    expect(delays[0]).toBeGreaterThan(8_000);
    expect(delays[0]).toBeLessThanOrEqual(10_000);
  });

  it("does not wait for a Retry-After beyond maxRetryAfterMs: the server's answer is the error", async () => {
    const { client, requests } = clientWith([apiError(503, "unavailable", "down for an hour", {}, { "retry-after": "3600" })], { maxRetryAfterMs: 60_000 });
    await expect(client.getTask("task_1")).rejects.toMatchObject({ status: 503, code: "unavailable", attempts: 1 });
    expect(requests).toHaveLength(1);
  });

  it("parseRetryAfter: seconds, HTTP dates, garbage", () => {
    expect(parseRetryAfter("0")).toBe(0);
    expect(parseRetryAfter(" 12 ")).toBe(12_000);
    expect(parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", Date.parse("Wed, 21 Oct 2015 07:27:00 GMT"))).toBe(60_000);
    expect(parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", Date.parse("Wed, 21 Oct 2015 08:00:00 GMT"))).toBe(0);
    expect(parseRetryAfter("soon")).toBeNull();
    expect(parseRetryAfter(null)).toBeNull();
  });

  it("never retries a 4xx other than 408/429", async () => {
    const { client, requests } = clientWith([apiError(409, "conflict", "changed")]);
    await expect(client.getTask("task_1")).rejects.toBeInstanceOf(ConflictError);
    expect(requests).toHaveLength(1);
  });

  it("call(name, …) reaches any JSON route of the contract; a route that is not idempotent (a review decision) is not retried", async () => {
    const { client, requests } = clientWith([apiError(503, "unavailable")]);
    await expect(client.call("decideReviewItem", { params: { id: "r/1" }, body: { decision: "reject", reason: "no" } })).rejects.toMatchObject({
      status: 503,
      attempts: 1,
    });
    expect(requests).toEqual([
      expect.objectContaining({ method: "POST", url: `${BASE}/api/review-items/r%2F1/decision`, body: { decision: "reject", reason: "no" } }),
    ]);
  });

  it("retry: false disables retrying", async () => {
    const script = scriptedFetch([apiError(503, "unavailable")]);
    const client = new StoplineClient({ baseUrl: BASE, token: "t", fetch: script.fetch, retry: false });
    await expect(client.getTask("task_1")).rejects.toMatchObject({ status: 503, attempts: 1 });
  });

  it("a timed-out attempt is a NetworkError (code timeout) and is retried for idempotent calls", async () => {
    const hang: Step = (_req, signal) => new Promise<Response>((_, reject) => signal!.addEventListener("abort", () => reject(signal!.reason)));
    const { client, requests } = clientWith([hang, json(200, aTaskDetail())], { timeoutMs: 20 });
    expect((await client.getTask("task_1")).id).toBe("task_1");
    expect(requests).toHaveLength(2);

    const second = clientWith([hang], { timeoutMs: 20, retries: 0 });
    const error = await second.client.getTask("task_1").catch((e) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ code: "timeout", status: null });
  });

  it("the caller's AbortSignal rejects with its reason and is never retried", async () => {
    const abort = new AbortController();
    const hang: Step = (_req, signal) => {
      queueMicrotask(() => abort.abort(new Error("user gave up")));
      return new Promise<Response>((_, reject) => signal!.addEventListener("abort", () => reject(signal!.reason)));
    };
    const { client, requests } = clientWith([hang]);
    await expect(client.getTask("task_1", { signal: abort.signal })).rejects.toThrow("user gave up");
    expect(requests).toHaveLength(1);
  });
});

describe("non-idempotent calls are never re-sent once they may have reached the server", () => {
  it("createTask: a 503 or a reset connection is the error, after one attempt", async () => {
    for (const failure of [apiError(503, "unavailable"), networkReset()]) {
      const { client, requests } = clientWith([failure, json(201, aTask())]);
      await expect(client.createTask({ title: "x" })).rejects.toBeInstanceOf(StoplineError);
      expect(requests).toHaveLength(1);
    }
  });

  it("createTask: re-sent when the connection was refused (the request provably never left)", async () => {
    const { client, requests } = clientWith([connectionError("ECONNREFUSED"), json(201, aTask())]);
    expect((await client.createTask({ title: "x" })).id).toBe("task_1");
    expect(requests).toHaveLength(2);
  });

  it("scheduleWorkItem without a correlationId or idempotencyKey: not retried", async () => {
    const { client, requests } = clientWith([apiError(502, "bad_gateway"), json(201, aWorkItem())]);
    await expect(
      client.scheduleWorkItem("task_1", { kind: "local_worker", toolName: "example.slow_count", mechanism: "abort_signal", intentVersion: 1 }),
    ).rejects.toMatchObject({ status: 502 });
    expect(requests).toHaveLength(1);
  });

  it("scheduleWorkItem with a correlationId: retried; a retry that finds the item already scheduled returns it", async () => {
    const scheduled = aWorkItem({ id: "wi_9", correlationId: "count-1" });
    const { client, requests } = clientWith([
      networkReset(), // the first attempt's answer is lost (it may have been scheduled)
      apiError(409, "conflict", "a work item with this correlation id or idempotency key already exists (wi_9)", { details: { workItemId: "wi_9" } }),
      json(200, aTaskDetail({ workItems: [scheduled] })),
    ]);
    const item = await client.scheduleWorkItem("task_1", {
      kind: "local_worker",
      toolName: "example.slow_count",
      mechanism: "abort_signal",
      intentVersion: 1,
      correlationId: "count-1",
    });
    expect(item.id).toBe("wi_9");
    expect(requests.map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual([
      "POST /api/tasks/task_1/work-items",
      "POST /api/tasks/task_1/work-items",
      "GET /api/tasks/task_1",
    ]);
  });

  it("scheduleWorkItem: a duplicate correlationId for a DIFFERENT request stays a ConflictError", async () => {
    const other = aWorkItem({ id: "wi_9", correlationId: "count-1", toolName: "shop.create_order" });
    const { client } = clientWith([
      apiError(409, "conflict", "a work item with this correlation id or idempotency key already exists (wi_9)", { details: { workItemId: "wi_9" } }),
      json(200, aTaskDetail({ workItems: [other] })),
    ]);
    await expect(
      client.scheduleWorkItem("task_1", {
        kind: "local_worker",
        toolName: "example.slow_count",
        mechanism: "abort_signal",
        intentVersion: 1,
        correlationId: "count-1",
      }),
    ).rejects.toBeInstanceOf(ConflictError);
  });

  it("complete: retried; a retry after a landed completion surfaces stale_lease with the outcome as current state", async () => {
    const { client } = clientWith([
      apiError(503, "unavailable"),
      apiError(409, "stale_lease", "lease token is not current", { details: { workItemId: "wi_1", currentState: "completed" } }),
    ]);
    const error = await client.complete("wi_1", { leaseToken: "l", outcome: "completed" }).catch((e) => e);
    expect(error).toBeInstanceOf(StaleLeaseError);
    expect(error).toMatchObject({ attempts: 2, details: { currentState: "completed" } });
  });
});

describe("typed errors from the API's error codes", () => {
  const cases: [Response, new (...args: never[]) => StoplineError, Record<string, unknown>][] = [
    [
      apiError(409, "cancel_requested", "task t was cancelled", { details: { taskId: "t" } }),
      CancelledError,
      { status: 409, code: "cancel_requested", details: { taskId: "t" } },
    ],
    [
      apiError(409, "stale_intent", "prepared under 1, task at 2", { details: { currentIntentVersion: 2 } }),
      StaleIntentError,
      { code: "stale_intent", details: { currentIntentVersion: 2 } },
    ],
    [apiError(409, "stale_lease", "lease token is not current"), StaleLeaseError, { code: "stale_lease" }],
    [apiError(404, "not_found", "task t not found"), NotFoundError, { status: 404 }],
    [apiError(409, "conflict", "changed"), ConflictError, { code: "conflict" }],
    [apiError(409, "illegal_transition", "cannot move"), ConflictError, { code: "illegal_transition" }],
    [apiError(401, "unauthorized", "sign in"), UnauthorizedError, { status: 401 }],
    [apiError(403, "forbidden", "a worker token may not …", { details: { role: "worker" } }), ForbiddenError, { status: 403, details: { role: "worker" } }],
    [new Response("Not Found", { status: 404 }), NotFoundError, { status: 404, code: "http_error" }],
    [new Response("<html>oops</html>", { status: 418 }), StoplineError, { status: 418, code: "http_error" }],
  ];
  it.each(cases.map(([res, cls, fields], i) => [i, res, cls, fields] as const))("case %i", async (_i, response, cls, fields) => {
    const { client } = clientWith([response]);
    const error = await client.getTask("t").catch((e) => e);
    expect(error).toBeInstanceOf(cls);
    expect(error).toBeInstanceOf(StoplineError);
    expect(error).toMatchObject({ ...fields, route: "GET /api/tasks/{taskId}" });
    expect(error.message).not.toBe("");
  });

  it("a 400 becomes a ValidationError with the field issues (zod) or the field in details (domain)", async () => {
    const zod = apiError(400, "bad_request", "invalid request — title: Too small", { issues: [{ field: "title", message: "Too small" }] });
    const domain = apiError(400, "bad_request", 'outcome "partial" needs the partialResult that is kept', { details: { field: "partialResult" } });
    const { client } = clientWith([zod, domain]);
    const a = await client.createTask({ title: "" }).catch((e) => e);
    expect(a).toBeInstanceOf(ValidationError);
    expect(a.issues).toEqual([{ field: "title", message: "Too small" }]);
    const b = await client.complete("wi_1", { leaseToken: "l", outcome: "partial" }).catch((e) => e);
    expect(b).toBeInstanceOf(ValidationError);
    expect(b.issues).toEqual([{ field: "partialResult", message: 'outcome "partial" needs the partialResult that is kept' }]);
  });
});

describe("every answer is parsed with the shared schemas", () => {
  it("a 200 that breaks the contract is an InvalidResponseError with the issues — not retried", async () => {
    const { client, requests } = clientWith([json(200, { ...aTaskDetail(), stage: "exploded", intentVersion: "1" })]);
    const error = await client.getTask("task_1").catch((e) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error).toMatchObject({ status: 200, code: "invalid_response" });
    expect(error.details.issues.map((i: { field: string }) => i.field).sort()).toEqual(["intentVersion", "stage"]);
    expect(requests).toHaveLength(1);
  });

  it("a body that is not JSON is an InvalidResponseError", async () => {
    const { client } = clientWith([new Response("<html>captive portal</html>", { status: 200 })]);
    await expect(client.getCancellation("task_1")).rejects.toMatchObject({ name: "InvalidResponseError", code: "invalid_response" });
  });

  it("parses (and thereby strips) what the schema describes", async () => {
    const { client } = clientWith([json(201, { ...aTask(), extra: "not in the contract" })]);
    const task = await client.createTask({ title: "x" });
    expect(task).not.toHaveProperty("extra");
  });
});

describe("events(): server-sent ledger events with resume", () => {
  async function take(iterable: AsyncIterable<LedgerEvent>, n: number) {
    const got: LedgerEvent[] = [];
    for await (const e of iterable) {
      got.push(e);
      if (got.length >= n) break;
    }
    return got;
  }

  it("resumes after a dropped connection with Last-Event-ID; replays are not yielded twice", async () => {
    const { client, requests, delays } = clientWith([
      sseResponse([`retry: 1000\n: connected after 0\n\n`, sseEvent(1), sseEvent(2)], "break"),
      networkReset(), // the first reconnection fails
      sseResponse([sseEvent(2), sseEvent(3), `: heartbeat\n\n`, `event: other\ndata: {}\n\n`, sseEvent(4)], "close"),
    ]);
    const got = await take(client.events({ taskId: "task_1" }), 4);
    expect(got.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(requests.map((r) => r.url)).toEqual([`${BASE}/api/tasks/task_1/events`, `${BASE}/api/tasks/task_1/events`, `${BASE}/api/tasks/task_1/events`]);
    expect(requests.map((r) => r.headers["last-event-id"])).toEqual([undefined, "2", "2"]);
    expect(delays).toHaveLength(2);
  });

  it("starts after lastEventId and uses the all-tasks stream without a taskId", async () => {
    const { client, requests } = clientWith([sseResponse([sseEvent(8), sseEvent(9)])]);
    const got = await take(client.events({ lastEventId: 7 }), 2);
    expect(got.map((e) => e.seq)).toEqual([8, 9]);
    expect(requests[0]).toMatchObject({ url: `${BASE}/api/events`, headers: expect.objectContaining({ "last-event-id": "7", accept: "text/event-stream" }) });
  });

  it("a refused subscription (401, 404) is thrown, not retried", async () => {
    const { client, requests } = clientWith([apiError(401, "unauthorized", "sign in")]);
    await expect(take(client.events({ taskId: "task_1" }), 1)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(requests).toHaveLength(1);
  });

  it("an event that breaks the contract is an InvalidResponseError", async () => {
    const { client } = clientWith([sseResponse([`id: 1\nevent: ledger\ndata: ${JSON.stringify({ ...aLedgerEvent(1), seq: "one" })}\n\n`])]);
    await expect(take(client.events({ taskId: "task_1" }), 1)).rejects.toBeInstanceOf(InvalidResponseError);
  });

  it("ends without an error when the signal aborts", async () => {
    const abort = new AbortController();
    const { client } = clientWith([sseResponse([sseEvent(1)], "break"), () => (abort.abort(), networkReset())]);
    const got: number[] = [];
    for await (const e of client.events({ taskId: "task_1", signal: abort.signal })) got.push(e.seq);
    expect(got).toEqual([1]);
  });

  it("gives up after maxReconnects consecutive failures with the last error", async () => {
    const { client } = clientWith([networkReset(), apiError(503, "unavailable"), networkReset()]);
    const error = await take(client.events({ taskId: "task_1", maxReconnects: 2 }), 1).catch((e) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.attempts).toBe(3);
  });
});

describe("the client is a facade over task, workItem, review and incident sub-clients", () => {
  type Case = [string, (c: StoplineClient) => Promise<unknown>, (c: StoplineClient) => Promise<unknown>, keyof typeof contract, string];
  const cases: Case[] = [
    ["task.create", (c) => c.task.create({ title: "t" }), (c) => c.createTask({ title: "t" }), "createTask", "/api/tasks"],
    ["task.get", (c) => c.task.get("t1"), (c) => c.getTask("t1"), "getTask", "/api/tasks/t1"],
    ["task.cancel", (c) => c.task.cancel("t1"), (c) => c.cancel("t1"), "cancelTask", "/api/tasks/t1/cancel"],
    ["task.cancellation", (c) => c.task.cancellation("t1"), (c) => c.getCancellation("t1"), "getCancellation", "/api/tasks/t1/cancellation"],
    ["task.stopPreview", (c) => c.task.stopPreview("t1"), (c) => c.stopPreview("t1"), "stopPreview", "/api/tasks/t1/stop-preview"],
    ["task.stopPerson", (c) => c.task.stopPerson("p1"), (c) => c.stopPerson("p1"), "stopPerson", "/api/people/p1/cancel"],
    ["workItem.stop", (c) => c.workItem.stop("w1"), (c) => c.stopWorkItem("w1"), "stopWorkItem", "/api/work-items/w1/cancel"],
    ["workItem.claim", (c) => c.workItem.claim({ workerId: "w" }), (c) => c.claim({ workerId: "w" }), "claim", "/api/workers/claim"],
    [
      "workItem.complete",
      (c) => c.workItem.complete("w1", { leaseToken: "l", outcome: "completed" }),
      (c) => c.complete("w1", { leaseToken: "l", outcome: "completed" }),
      "complete",
      "/api/work-items/w1/complete",
    ],
    ["review.list", (c) => c.review.list({ status: "open" }), (c) => c.listReviewItems({ status: "open" }), "listReviewItems", "/api/review-items?status=open"],
    ["incident.get", (c) => c.incident.get("i1"), (c) => c.getIncident("i1"), "getIncident", "/api/incidents/i1"],
    ["incident.confirmLift", (c) => c.incident.confirmLift("i1"), (c) => c.confirmIncidentLift("i1"), "confirmIncidentLift", "/api/incidents/i1/lift/confirm"],
  ];

  it.each(cases)("%s sends its contract route, and the flat name sends the same request", async (_name, viaSubClient, viaFlatName, route, path) => {
    const { client, requests } = clientWith([apiError(404, "not_found"), apiError(404, "not_found")], { retries: 0 });
    await expect(viaSubClient(client)).rejects.toBeInstanceOf(NotFoundError);
    await expect(viaFlatName(client)).rejects.toBeInstanceOf(NotFoundError);
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({ method: contract[route].method, url: `${BASE}${path}` });
    expect({ ...requests[1], headers: undefined }).toEqual({ ...requests[0], headers: undefined });
  });
});
