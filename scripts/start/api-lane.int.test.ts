import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "../../lib/auth/tokens";
import { createTestDatabase, type TestDatabase } from "../../lib/testing/test-database";
import { serveApiDirectly } from "./api-lane";

/**
 * The API lane of `npm start`'s server (serve.ts) on a plain Node server: requests reach the route handlers
 * without Next.js, with the same answers and headers; paths it has no route for are left to the next handler.
 */
let t: TestDatabase;
let token: string;
let server: Server;
let base: string;
beforeAll(async () => {
  t = await createTestDatabase();
  t.install();
  token = (await createApiToken(t.database, { name: "lane-agent", role: "agent" })).token;
  server = createServer((req, res) => {
    void serveApiDirectly(req, res).then((served) => {
      if (!served) res.writeHead(418, { "content-type": "text/plain" }).end("left to Next.js");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await t?.drop();
});

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers }, body });

describe("npm start's API lane", () => {
  it("POST /api/tasks - reaches the route handler: the task and its event are written; the answer carries the API's security headers", async () => {
    const res = await post("/api/tasks", JSON.stringify({ title: "through the lane" }));
    expect(res.status).toBe(201);
    const task = await res.json();
    expect(task).toMatchObject({ title: "through the lane", stage: "active" });
    expect(res.headers.get("content-security-policy")).toMatch(/default-src 'none'/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await t.database.prisma.ledgerEvent.count({ where: { taskId: task.id, type: "task.created" } })).toBe(1);
    const stop = await post(`/api/tasks/${task.id}/cancel`, JSON.stringify({ reason: "lane" }));
    expect(stop.status).toBe(202);
  });

  it("answers as the handlers do when it must refuse: 401, 400 naming the field, 413 past 1 MiB, 405, a malformed path segment 400; a path with no API route is left to Next.js", async () => {
    expect((await fetch(`${base}/api/tasks`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status).toBe(401);
    const bad = await post("/api/tasks", JSON.stringify({ title: "" }));
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toMatch(/title/);
    expect((await post("/api/tasks", JSON.stringify({ title: "x".repeat(2 * 1024 * 1024) }))).status).toBe(413);
    expect((await fetch(`${base}/api/openapi.json`, { method: "DELETE" })).status).toBe(405);
    const malformed = await fetch(`${base}/api/tasks/%C0%AE`, { headers: { authorization: `Bearer ${token}` } });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.details.field).toBe("(path)");
    const elsewhere = await fetch(`${base}/api/no-such-route`);
    expect(elsewhere.status).toBe(418);
    expect(await elsewhere.text()).toBe("left to Next.js");
  });
});
