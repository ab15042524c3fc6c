import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@/lib/auth/tokens";
import { call, json } from "@/test/support/api-client";
import { createTestDatabase, type TestDatabase } from "@/lib/db/scratch-database";

let t: TestDatabase;
const tokens = { admin: "", agent: "", worker: "" };

beforeAll(async () => {
  t = await createTestDatabase();
  t.install();
  for (const role of ["admin", "agent", "worker"] as const) tokens[role] = (await createApiToken(t.database, { name: `${role}-1`, role })).token;
});
afterAll(async () => t?.drop());

const counts = async () => ({
  tasks: await t.database.prisma.task.count(),
  workItems: await t.database.prisma.workItem.count(),
  events: await t.database.prisma.ledgerEvent.count(),
  sideEffects: await t.database.prisma.sideEffect.count(),
});

async function newTask(title = "order two chairs") {
  const res = await call("POST", "/api/tasks", { token: tokens.agent, body: { title, conversationId: "conv-1" } });
  expect(res.status).toBe(201);
  return json(res);
}
async function newItem(taskId: string, body: Record<string, unknown> = {}) {
  const res = await call("POST", `/api/tasks/${taskId}/work-items`, {
    token: tokens.agent,
    body: { kind: "external_action", toolName: "shop.create_order", mechanism: "rollback", intentVersion: 1, commitsEffect: true, ...body },
  });
  expect(res.status).toBe(201);
  return json(res);
}
async function claim(toolName: string) {
  const res = await call("POST", "/api/workers/claim", { token: tokens.worker, body: { workerId: "w1", toolNames: [toolName] } });
  expect(res.status).toBe(200);
  return (await json(res)).workItem;
}

describe("tasks", () => {
  it("POST /api/tasks - creates an active task owned by the caller, with an event", async () => {
    const task = await newTask();
    expect(task).toMatchObject({ title: "order two chairs", stage: "active", intentVersion: 1, ownerId: "agent-1", conversationId: "conv-1" });
    const events = await t.database.prisma.ledgerEvent.findMany({ where: { taskId: task.id } });
    expect(events.map((e) => e.type)).toEqual(["task.created"]);
  });

  it("GET /api/tasks - filters by status and conversation", async () => {
    const a = await newTask("a");
    await call("POST", `/api/tasks/${a.id}/cancel`, { token: tokens.agent, body: {} });
    const res = await call("GET", "/api/tasks?status=cancel_requested&conversationId=conv-1", { token: tokens.admin });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.tasks.map((x: { id: string }) => x.id)).toContain(a.id);
    expect(body.tasks.every((x: { stage: string }) => x.stage === "cancel_requested")).toBe(true);
  });

  it("GET /api/tasks/{id} - returns work items, resources, side effects and review items, without lease tokens", async () => {
    const task = await newTask();
    await newItem(task.id, { toolName: "tool.detail" });
    await claim("tool.detail");
    const res = await call("GET", `/api/tasks/${task.id}`, { token: tokens.agent });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.workItems).toHaveLength(1);
    expect(body.workItems[0].status).toBe("running");
    expect(body.workItems[0]).not.toHaveProperty("leaseToken");
    expect(body).toHaveProperty("resources");
    expect(body).toHaveProperty("sideEffects");
    expect(body).toHaveProperty("reviewItems");
  });

  it("GET /api/tasks/{id} - unknown id is 404", async () => {
    const res = await call("GET", "/api/tasks/nope", { token: tokens.agent });
    expect(res.status).toBe(404);
    expect((await json(res)).error.message).toMatch(/not found/);
  });
});

describe("work items and the boundary", () => {
  it("POST /api/tasks/{id}/work-items - after the cancel is 409 and writes nothing", async () => {
    const task = await newTask();
    await call("POST", `/api/tasks/${task.id}/cancel`, { token: tokens.agent, body: { reason: "stop" } });
    const before = await counts();
    const res = await call("POST", `/api/tasks/${task.id}/work-items`, {
      token: tokens.agent,
      body: { kind: "remote_tool", toolName: "x", mechanism: "none", intentVersion: 2 },
    });
    expect(res.status).toBe(409);
    expect((await json(res)).error.code).toBe("cancel_requested");
    expect(await counts()).toEqual(before);
  });

  it("POST /api/tasks/{id}/work-items - a stale intentVersion is 409 with the current version", async () => {
    const task = await newTask();
    const res = await call("POST", `/api/tasks/${task.id}/work-items`, {
      token: tokens.agent,
      body: { kind: "remote_tool", toolName: "x", mechanism: "none", intentVersion: 3 },
    });
    expect(res.status).toBe(409);
    expect((await json(res)).error).toMatchObject({ code: "stale_intent", details: { currentIntentVersion: 1, preparedIntentVersion: 3 } });
  });

  it("POST /api/tasks/{id}/cancel - answers 202 with the boundary (intent version, time)", async () => {
    const task = await newTask();
    const res = await call("POST", `/api/tasks/${task.id}/cancel`, { token: tokens.agent, body: { reason: "user pressed Stop" } });
    expect(res.status).toBe(202);
    const body = await json(res);
    expect(body).toMatchObject({ kind: "boundary", boundary: { taskId: task.id, intentVersion: 2, reason: "user pressed Stop", alreadyRequested: false } });
    expect(Date.parse(body.boundary.cancelRequestedAt)).not.toBeNaN();
  });

  it("POST /api/tasks/{id}/cancel - repeat returns the same boundary", async () => {
    const task = await newTask();
    const first = await json(await call("POST", `/api/tasks/${task.id}/cancel`, { token: tokens.agent, body: { reason: "stop" } }));
    const eventsBefore = await t.database.prisma.ledgerEvent.count({ where: { taskId: task.id } });
    const res = await call("POST", `/api/tasks/${task.id}/cancel`, { token: tokens.agent, body: { reason: "stop again" } });
    expect(res.status).toBe(202);
    const second = await json(res);
    expect(second.boundary).toEqual({ ...first.boundary, alreadyRequested: true });
    expect(await t.database.prisma.ledgerEvent.count({ where: { taskId: task.id } })).toBe(eventsBefore);
    expect((await t.database.prisma.task.findUniqueOrThrow({ where: { id: task.id } })).intentVersion).toBe(2);
  });

  it("POST /api/tasks/{id}/cancel - unknown task is 404", async () => {
    const res = await call("POST", "/api/tasks/missing/cancel", { token: tokens.agent, body: {} });
    expect(res.status).toBe(404);
  });

  it("GET /api/tasks/{id}/cancellation - before any Stop is 404 saying no cancellation was requested", async () => {
    const task = await newTask();
    const res = await call("GET", `/api/tasks/${task.id}/cancellation`, { token: tokens.agent });
    expect(res.status).toBe(404);
    expect((await json(res)).error.message).toMatch(/no cancellation was requested/);
  });

  it("GET /api/tasks/{id}/cancellation - reports in progress while children are unsettled, never 'cancelled'", async () => {
    const task = await newTask();
    await newItem(task.id, { toolName: "tool.summary-running" });
    await newItem(task.id, { toolName: "tool.summary-queued" });
    await claim("tool.summary-running");
    await call("POST", `/api/tasks/${task.id}/cancel`, { token: tokens.agent, body: {} });
    const res = await call("GET", `/api/tasks/${task.id}/cancellation`, { token: tokens.agent });
    expect(res.status).toBe(200);
    const summary = await json(res);
    expect(summary.status).toBe("IN_PROGRESS");
    expect(summary.cancelled_tool_calls).toEqual([]);
    expect(summary.user_message).toMatch(/^Stopped new work\. Two steps are still being stopped or checked\./);
  });
});

describe("the worker protocol", () => {
  it("POST /api/workers/claim - returns the item with its lease token, or null when nothing is queued", async () => {
    const task = await newTask();
    const item = await newItem(task.id, { toolName: "tool.protocol" });
    const claimed = await claim("tool.protocol");
    expect(claimed).toMatchObject({ id: item.id, status: "running", leaseOwner: "w1" });
    expect(typeof claimed.leaseToken).toBe("string");
    expect(await claim("tool.protocol")).toBeNull();
  });

  it("heartbeat → checkpoint → submitted → complete - the whole lease protocol over HTTP", async () => {
    const task = await newTask();
    const item = await newItem(task.id, { toolName: "tool.full" });
    const { leaseToken } = await claim("tool.full");
    const hb = await call("POST", `/api/work-items/${item.id}/heartbeat`, { token: tokens.worker, body: { leaseToken } });
    expect(hb.status).toBe(200);
    expect(await json(hb)).toMatchObject({ status: "running", cancelRequested: false, intentVersion: 1 });
    const cp = await call("POST", `/api/work-items/${item.id}/checkpoint`, { token: tokens.worker, body: { leaseToken } });
    expect(cp.status).toBe(200);
    const sub = await call("POST", `/api/work-items/${item.id}/submitted`, {
      token: tokens.worker,
      body: { leaseToken, operationId: "op-http-1", reversible: true, description: "order for two chairs" },
    });
    expect(sub.status).toBe(200);
    expect((await json(sub)).sideEffect).toMatchObject({ operationId: "op-http-1", outcome: "unknown" });
    const done = await call("POST", `/api/work-items/${item.id}/complete`, {
      token: tokens.worker,
      body: { leaseToken, outcome: "completed", result: { orderId: "o-1" }, externalRecordId: "o-1", externalVersion: "1" },
    });
    expect(done.status).toBe(200);
    expect(await json(done)).toMatchObject({ status: "completed", result: { orderId: "o-1" } });
    const effect = await t.database.prisma.sideEffect.findUniqueOrThrow({ where: { operationId: "op-http-1" } });
    expect(effect.outcome).toBe("committed");
  });

  it("POST /api/work-items/{id}/checkpoint - after the boundary is 409 and the rejection is recorded", async () => {
    const task = await newTask();
    const item = await newItem(task.id, { toolName: "tool.http-late" });
    const { leaseToken } = await claim("tool.http-late");
    await call("POST", `/api/tasks/${task.id}/cancel`, { token: tokens.agent, body: {} });
    const res = await call("POST", `/api/work-items/${item.id}/checkpoint`, { token: tokens.worker, body: { leaseToken } });
    expect(res.status).toBe(409);
    expect((await json(res)).error.code).toBe("cancel_requested");
    expect(await t.database.prisma.ledgerEvent.count({ where: { workItemId: item.id, type: "checkpoint.rejected" } })).toBe(1);
    const hb = await json(await call("POST", `/api/work-items/${item.id}/heartbeat`, { token: tokens.worker, body: { leaseToken } }));
    expect(hb.cancelRequested).toBe(true);
  });

  it("POST /api/work-items/{id}/heartbeat - a stale token is 409 and the attempt is an event", async () => {
    const task = await newTask();
    const item = await newItem(task.id, { toolName: "tool.http-stale" });
    await claim("tool.http-stale");
    const res = await call("POST", `/api/work-items/${item.id}/heartbeat`, { token: tokens.worker, body: { leaseToken: "not-the-token" } });
    expect(res.status).toBe(409);
    expect((await json(res)).error.code).toBe("stale_lease");
    expect(await t.database.prisma.ledgerEvent.count({ where: { workItemId: item.id, type: "lease.stale_token_rejected" } })).toBe(1);
  });

  it("POST /api/work-items/{id}/progress - the lease holder's progress is kept on the item and sent as an event; nothing else changes", async () => {
    const task = await newTask();
    const item = await newItem(task.id, { toolName: "tool.progress" });
    const { leaseToken } = await claim("tool.progress");
    const res = await call("POST", `/api/work-items/${item.id}/progress`, {
      token: tokens.worker,
      body: { leaseToken, done: 1200, total: 3000, unit: "rows" },
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ done: 1200, total: 3000, unit: "rows" });
    const detail = await json(await call("GET", `/api/tasks/${task.id}`, { token: tokens.agent }));
    expect(detail.workItems[0]).toMatchObject({ status: "running", rowVersion: 2, progress: { done: 1200, total: 3000, unit: "rows" } });
    const event = await t.database.prisma.ledgerEvent.findFirstOrThrow({ where: { workItemId: item.id, type: "work_item.progress" } });
    expect(event).toMatchObject({ fromState: null, toState: null, data: { done: 1200, total: 3000, unit: "rows" } });
  });

  it("POST /api/work-items/{id}/progress - bad input is 400 naming the field; a stale token is 409; a settled item takes none; nothing is written", async () => {
    const task = await newTask();
    const item = await newItem(task.id, { toolName: "tool.progress-bad" });
    const { leaseToken } = await claim("tool.progress-bad");
    const before = await t.database.prisma.ledgerEvent.count({ where: { workItemId: item.id } });
    for (const [body, field] of [
      [{ leaseToken, done: -1 }, "done"],
      [{ leaseToken, done: 1, total: 0 }, "total"],
      [{ leaseToken, done: 1, extra: true }, ""],
      [{ leaseToken }, "done"],
    ] as const) {
      const bad = await call("POST", `/api/work-items/${item.id}/progress`, { token: tokens.worker, body });
      expect(bad.status, JSON.stringify(body)).toBe(400);
      if (field) expect((await json(bad)).error.issues.map((i: { field: string }) => i.field)).toContain(field);
    }
    expect(await t.database.prisma.ledgerEvent.count({ where: { workItemId: item.id } })).toBe(before);
    const stale = await call("POST", `/api/work-items/${item.id}/progress`, { token: tokens.worker, body: { leaseToken: "not-the-token", done: 5 } });
    expect(stale.status).toBe(409);
    expect((await json(stale)).error.code).toBe("stale_lease");
    await call("POST", `/api/work-items/${item.id}/complete`, { token: tokens.worker, body: { leaseToken, outcome: "completed" } });
    const late = await call("POST", `/api/work-items/${item.id}/progress`, { token: tokens.worker, body: { leaseToken, done: 9 } });
    expect(late.status).toBe(409);
    const stored = await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } });
    expect(stored.progress).toBeNull();
    expect(await call("POST", `/api/work-items/${item.id}/progress`, { token: tokens.agent, body: { leaseToken, done: 1 } }).then((r) => r.status)).toBe(403);
  });

  it("POST /api/work-items/{id}/complete - a finished item cannot be completed again (409 with the current state)", async () => {
    const task = await newTask();
    const item = await newItem(task.id, { toolName: "tool.twice" });
    const { leaseToken } = await claim("tool.twice");
    await call("POST", `/api/work-items/${item.id}/complete`, { token: tokens.worker, body: { leaseToken, outcome: "completed" } });
    const res = await call("POST", `/api/work-items/${item.id}/complete`, { token: tokens.worker, body: { leaseToken, outcome: "completed" } });
    expect(res.status).toBe(409);
    expect((await json(res)).error.details).toMatchObject({ currentState: "completed" });
  });
});

describe("authentication and roles", () => {
  it("GET /api/tasks - without a token is 401", async () => {
    expect((await call("GET", "/api/tasks")).status).toBe(401);
  });
  it("GET /api/tasks - with a wrong token is 401", async () => {
    expect((await call("GET", "/api/tasks", { token: "stl_wrong" })).status).toBe(401);
  });
  it("POST /api/tasks - a worker token is 403", async () => {
    const res = await call("POST", "/api/tasks", { token: tokens.worker, body: { title: "x" } });
    expect(res.status).toBe(403);
    expect(await t.database.prisma.task.count({ where: { title: "x" } })).toBe(0);
  });
  it("POST /api/workers/claim - an agent token is 403", async () => {
    expect((await call("POST", "/api/workers/claim", { token: tokens.agent, body: { workerId: "w" } })).status).toBe(403);
  });
  it("POST /api/tokens - only an admin creates tokens; the token is shown once and stored hashed", async () => {
    expect((await call("POST", "/api/tokens", { token: tokens.agent, body: { name: "n", role: "worker" } })).status).toBe(403);
    const res = await call("POST", "/api/tokens", { token: tokens.admin, body: { name: "ci-worker", role: "worker" } });
    expect(res.status).toBe(201);
    const { token, record } = await json(res);
    expect(token).toMatch(/^stl_/);
    const stored = await t.database.prisma.apiToken.findUniqueOrThrow({ where: { id: record.id } });
    expect(stored.tokenHash).not.toContain(token);
    expect((await call("GET", "/api/tasks", { token })).status).toBe(200);
  });
  it("STOPLINE_BOOTSTRAP_TOKEN - is accepted as an admin token", async () => {
    process.env.STOPLINE_BOOTSTRAP_TOKEN = "bootstrap-secret-for-tests-123";
    try {
      expect((await call("POST", "/api/tokens", { token: "bootstrap-secret-for-tests-123", body: { name: "first", role: "agent" } })).status).toBe(201);
    } finally {
      delete process.env.STOPLINE_BOOTSTRAP_TOKEN;
    }
  });
  it("POST /api/session - an admin token signs in with an httpOnly SameSite cookie; cross-site cookie writes are refused", async () => {
    const res = await call("POST", "/api/session", { body: { token: tokens.admin } });
    expect(res.status).toBe(200);
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const session = cookie.split(";")[0];
    expect((await call("GET", "/api/tasks", { headers: { cookie: session } })).status).toBe(200);
    const task = await newTask();
    const crossSite = await call("POST", `/api/tasks/${task.id}/cancel`, {
      body: {},
      headers: { cookie: session, origin: "https://evil.example", "sec-fetch-site": "cross-site" },
    });
    expect(crossSite.status).toBe(403);
    expect((await t.database.prisma.task.findUniqueOrThrow({ where: { id: task.id } })).cancelRequestedAt).toBeNull();
    const sameSite = await call("POST", `/api/tasks/${task.id}/cancel`, {
      body: {},
      headers: { cookie: session, origin: "http://localhost:3000", "sec-fetch-site": "same-origin", host: "localhost:3000" },
    });
    expect(sameSite.status).toBe(202);
  });
  it("POST /api/session - a worker token cannot open the console", async () => {
    const res = await call("POST", "/api/session", { body: { token: tokens.worker } });
    expect(res.status).toBe(403);
    expect(res.headers.get("set-cookie")).toBeNull();
  });
});

describe("bad input on every route: 4xx, a clear message naming the field, nothing written", () => {
  const cases: [string, "GET" | "POST", string | (() => Promise<string>), unknown, RegExp][] = [
    ["POST /api/tasks - missing title", "POST", "/api/tasks", {}, /title/],
    ["POST /api/tasks - unknown field", "POST", "/api/tasks", { title: "x", colour: "red" }, /colour/],
    ["POST /api/tasks - bad risk level", "POST", "/api/tasks", { title: "x", riskLevel: "extreme" }, /riskLevel/],
    ["GET /api/tasks - unknown status filter", "GET", "/api/tasks?status=sleeping", undefined, /sleeping/],
    ["GET /api/tasks - limit out of range", "GET", "/api/tasks?limit=5000", undefined, /limit/],
    [
      "POST /api/tasks/{id}/work-items - bad kind",
      "POST",
      async () => `/api/tasks/${(await newTask()).id}/work-items`,
      { kind: "magic", toolName: "x", mechanism: "none", intentVersion: 1 },
      /kind/,
    ],
    [
      "POST /api/tasks/{id}/work-items - bad mechanism",
      "POST",
      async () => `/api/tasks/${(await newTask()).id}/work-items`,
      { kind: "remote_tool", toolName: "x", mechanism: "prayer", intentVersion: 1 },
      /mechanism/,
    ],
    [
      "POST /api/tasks/{id}/work-items - intentVersion missing",
      "POST",
      async () => `/api/tasks/${(await newTask()).id}/work-items`,
      { kind: "remote_tool", toolName: "x", mechanism: "none" },
      /intentVersion/,
    ],
    ["POST /api/tasks/{id}/cancel - reason not a string", "POST", async () => `/api/tasks/${(await newTask()).id}/cancel`, { reason: 42 }, /reason/],
    ["POST /api/workers/claim - workerId missing", "POST", "/api/workers/claim", {}, /workerId/],
    ["POST /api/workers/claim - leaseMs too small", "POST", "/api/workers/claim", { workerId: "w", leaseMs: 5 }, /leaseMs/],
    ["POST /api/work-items/{id}/heartbeat - leaseToken missing", "POST", "/api/work-items/x/heartbeat", {}, /leaseToken/],
    [
      "POST /api/work-items/{id}/checkpoint - intentVersion not a number",
      "POST",
      "/api/work-items/x/checkpoint",
      { leaseToken: "t", intentVersion: "one" },
      /intentVersion/,
    ],
    ["POST /api/work-items/{id}/submitted - operationId missing", "POST", "/api/work-items/x/submitted", { leaseToken: "t" }, /operationId/],
    ["POST /api/work-items/{id}/complete - unknown outcome", "POST", "/api/work-items/x/complete", { leaseToken: "t", outcome: "vanished" }, /outcome/],
    ["POST /api/work-items/{id}/complete - failed without an error", "POST", "/api/work-items/x/complete", { leaseToken: "t", outcome: "failed" }, /error/],
    ["POST /api/tokens - unknown role", "POST", "/api/tokens", { name: "n", role: "god" }, /role/],
    ["POST /api/session - token missing", "POST", "/api/session", {}, /token/],
  ];
  for (const [name, method, path, body, field] of cases) {
    it(name, async () => {
      const url = typeof path === "string" ? path : await path();
      const before = await counts();
      const token = url.startsWith("/api/work") ? tokens.worker : url.startsWith("/api/tokens") || url === "/api/session" ? tokens.admin : tokens.agent;
      const res = await call(method, url, { token, body });
      expect(res.status).toBe(400);
      const error = (await json(res)).error;
      expect(error.code).toBe("bad_request");
      expect(error.message).toMatch(field);
      expect(error.issues?.[0]?.field ?? "").toMatch(field.source === "error" ? /error/ : /./);
      expect(await counts()).toEqual(before);
    });
  }

  it("POST /api/tasks - a body that is not JSON is 400", async () => {
    const before = await counts();
    const res = await call("POST", "/api/tasks", { token: tokens.agent, rawBody: "{title:", headers: { "content-type": "application/json" } });
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toMatch(/not valid JSON/);
    expect(await counts()).toEqual(before);
  });

  it("POST /api/tasks - a form-encoded body is refused (JSON only)", async () => {
    const res = await call("POST", "/api/tasks", { token: tokens.agent, rawBody: "title=x", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toMatch(/must be JSON/);
  });

  it("GET /api/tasks/{id}/events - a malformed Last-Event-ID is 400", async () => {
    const task = await newTask();
    const res = await call("GET", `/api/tasks/${task.id}/events`, { token: tokens.agent, headers: { "last-event-id": "yesterday" } });
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toMatch(/Last-Event-ID/);
  });
});

describe("documentation", () => {
  it("GET /api/openapi.json - an OpenAPI 3.1 document covering every route of the contract", async () => {
    const res = await call("GET", "/api/openapi.json");
    expect(res.status).toBe(200);
    const doc = await json(res);
    expect(doc.openapi).toBe("3.1.0");
    for (const p of [
      "/api/tasks",
      "/api/tasks/{taskId}",
      "/api/tasks/{taskId}/work-items",
      "/api/tasks/{taskId}/cancel",
      "/api/tasks/{taskId}/cancellation",
      "/api/tasks/{taskId}/events",
      "/api/events",
      "/api/workers/claim",
      "/api/work-items/{id}/heartbeat",
      "/api/work-items/{id}/checkpoint",
      "/api/work-items/{id}/submitted",
      "/api/work-items/{id}/complete",
    ]) {
      expect(doc.paths).toHaveProperty([p]);
    }
    const cancel = doc.paths["/api/tasks/{taskId}/cancel"].post;
    expect(cancel.responses).toHaveProperty("202");
    expect(cancel.requestBody.content["application/json"].schema.properties).toHaveProperty("reason");
  });
});
