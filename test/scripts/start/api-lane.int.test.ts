import { execFile } from "node:child_process";
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "../../../lib/auth/tokens";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { createTask } from "../../../lib/ledger/create-task";
import { answerExpectContinue, serveApiDirectly } from "../../../scripts/start/api-lane";

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
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    void serveApiDirectly(req, res).then((served) => {
      if (!served) res.writeHead(418, { "content-type": "text/plain" }).end("left to Next.js");
    });
  };
  server = createServer(onRequest);
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    if (answerExpectContinue(req, res)) return;
    res.writeContinue();
    onRequest(req, res);
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

  it("POST /api/tasks/{id}/work-items and /api/workers/claim with a 20 MB body - 413 with a JSON body naming the limit, read by the client (no reset, EPIPE), five times each; nothing is written", async () => {
    const task = await createTask(t.database, { title: "big bodies", ownerId: "o" }, "agent:t");
    const worker = (await createApiToken(t.database, { name: "lane-worker", role: "worker" })).token;
    const events = await t.database.prisma.ledgerEvent.count();
    // The client is another process, as in real life (in this process its writes and the server's reads take turns).
    const script = `
      const big = new Uint8Array(20 * 1024 * 1024).fill(97);
      const out = [];
      for (let i = 0; i < 5; i++) for (const [path, who] of JSON.parse(process.argv[1])) {
        try {
          const res = await fetch(process.argv[2] + path, { method: "POST", headers: { authorization: "Bearer " + who, "content-type": "application/json" }, body: big });
          out.push({ status: res.status, type: res.headers.get("content-type"), body: await res.json() });
        } catch (e) { out.push({ failed: String(e.cause?.code ?? e.message) }); }
      }
      console.log(JSON.stringify(out));`;
    const targets = JSON.stringify([
      [`/api/tasks/${task.id}/work-items`, token],
      ["/api/workers/claim", worker],
    ]);
    const answers = await new Promise<Array<{ status?: number; type?: string; body?: { error: { message: string; details: unknown } }; failed?: string }>>(
      (resolve, reject) => {
        execFile(process.execPath, ["--input-type=module", "-e", script, targets, base], { maxBuffer: 1 << 20 }, (error, stdout) =>
          error ? reject(error) : resolve(JSON.parse(stdout)),
        );
      },
    );
    expect(answers).toHaveLength(10);
    for (const a of answers) {
      expect(a.failed).toBeUndefined();
      expect(a.status).toBe(413);
      expect(a.type).toMatch(/application\/json/);
      expect(a.body!.error).toMatchObject({ code: "payload_too_large", details: { field: "(body)", limit: 1024 * 1024, received: 20 * 1024 * 1024 } });
      expect(a.body!.error.message).toBe(
        "the request body is larger than the API accepts: at most 1 MiB (1048576 bytes) per request; this one was 20 MiB (20971520 bytes)",
      );
    }
    expect(await t.database.prisma.ledgerEvent.count()).toBe(events);
  });

  it("Expect: 100-continue with a declared 20 MB body - 413 before the body is sent (curl's way for large bodies)", async () => {
    const port = new URL(base).port;
    const answer = await new Promise<{ status: number; body: string; continued: boolean }>((resolve, reject) => {
      let continued = false;
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port,
          path: "/api/workers/claim",
          method: "POST",
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            "content-length": String(20 * 1024 * 1024),
            expect: "100-continue",
          },
        },
        (res) => {
          let body = "";
          res.on("data", (c) => (body += c));
          res.on("end", () => resolve({ status: res.statusCode!, body, continued }));
        },
      );
      req.on("continue", () => {
        continued = true;
        req.destroy();
      });
      req.on("error", reject);
      req.flushHeaders();
    });
    expect(answer.continued).toBe(false);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error.details).toMatchObject({ limit: 1024 * 1024, received: 20 * 1024 * 1024 });
  });
});
