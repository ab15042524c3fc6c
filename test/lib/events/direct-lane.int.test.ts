import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "../../../lib/auth/tokens";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";
import { createTask } from "../../../lib/ledger/create-task";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { isEventStreamRequest, serveEventStreamDirectly } from "../../../lib/events/direct-lane";
import { readEventStream, type SseMessage } from "../../../lib/events/read-sse";

/**
 * The event-stream lane that `npm start`'s server uses (scripts/start/serve.ts), on a plain Node server: the same
 * answers as the route handlers (test/lib/events/sse.int.test.ts), frames written straight to the socket.
 */
let t: TestDatabase;
let token: string;
let server: Server;
let base: string;
beforeAll(async () => {
  t = await createTestDatabase();
  t.install();
  token = (await createApiToken(t.database, { name: "lane-reader", role: "agent" })).token;
  server = createServer((req, res) => {
    if (isEventStreamRequest(req)) void serveEventStreamDirectly(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await t?.drop();
});

async function collect(path: string, count: number, headers: Record<string, string> = {}, timeoutMs = 5_000) {
  const abort = new AbortController();
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}`, ...headers }, signal: abort.signal });
  const got: SseMessage[] = [];
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    for await (const m of readEventStream(res.body!)) {
      if (m.event !== "ledger") continue;
      got.push(m);
      if (got.length >= count) break;
    }
  } catch {
    /* timed out */
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return { res, got };
}

describe("the server's event-stream lane", () => {
  it("GET /api/tasks/{id}/events - the task's history, then live; resumed with Last-Event-ID exactly after the last event seen; the API's security headers", async () => {
    const task = await createTask(t.database, { title: "lane", ownerId: "o" }, "agent:t");
    await scheduleWorkItem(t.database, { taskId: task.id, kind: "local_worker", toolName: "x", mechanism: "abort_signal", intentVersion: 1 }, "agent:t");
    const first = await collect(`/api/tasks/${task.id}/events`, 2);
    expect(first.res.status).toBe(200);
    expect(first.res.headers.get("content-type")).toMatch(/text\/event-stream/);
    expect(first.res.headers.get("content-security-policy")).toMatch(/default-src 'none'/);
    expect(first.res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(first.got.map((m) => JSON.parse(m.data).type)).toEqual(["task.created", "work_item.scheduled"]);

    await requestCancellation(t.database, { taskId: task.id, reason: "stop", actor: "agent:t" });
    const resumed = await collect(`/api/tasks/${task.id}/events`, 1, { "last-event-id": first.got[1].id! });
    expect(resumed.got.map((m) => JSON.parse(m.data).type)).toEqual(["task.cancel_requested"]);
  });

  it("answers like the route handlers when it must refuse: 401 without a token, 404 for an unknown task, 400 for a Last-Event-ID that is no event, 429 past the cap", async () => {
    expect((await fetch(`${base}/api/events`)).status).toBe(401);
    const unknown = await fetch(`${base}/api/tasks/00000000-0000-4000-8000-000000000000/events`, { headers: { authorization: `Bearer ${token}` } });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe("not_found");
    const bad = await fetch(`${base}/api/events`, { headers: { authorization: `Bearer ${token}`, "last-event-id": "99999999" } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("content-security-policy")).toMatch(/default-src 'none'/);

    process.env.STOPLINE_SSE_MAX_PER_PRINCIPAL = "1";
    const open = new AbortController();
    try {
      const first = await fetch(`${base}/api/events`, { headers: { authorization: `Bearer ${token}` }, signal: open.signal });
      expect(first.status).toBe(200);
      const refused = await fetch(`${base}/api/events`, { headers: { authorization: `Bearer ${token}` } });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      delete process.env.STOPLINE_SSE_MAX_PER_PRINCIPAL;
      open.abort();
    }
  });

  it("GET /api/events - one token opening 150 streams at once: exactly the cap (32) get 200, the other 118 get 429 with Retry-After and a JSON body; none a 500", async () => {
    const reader = (await createApiToken(t.database, { name: "many-streams", role: "agent" })).token;
    const open = new AbortController();
    try {
      const answers = await Promise.all(
        Array.from({ length: 150 }, () => fetch(`${base}/api/events`, { headers: { authorization: `Bearer ${reader}` }, signal: open.signal })),
      );
      const statuses = answers.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(32);
      expect(statuses.filter((s) => s === 429)).toHaveLength(118);
      for (const refused of answers.filter((r) => r.status === 429)) {
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
        const body = await refused.json();
        expect(body.error).toMatchObject({ code: "too_many_requests", details: { limit: 32 } });
        expect(body.error.message).toMatch(/32 open event streams/);
      }
    } finally {
      open.abort();
    }
  });
});
