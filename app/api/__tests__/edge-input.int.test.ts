import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "@/lib/api/input-guard";
import { createApiToken } from "@/lib/auth/tokens";
import { call, json } from "@/test/support/api-client";
import { createTestDatabase, testEngine, type TestDatabase } from "@/lib/db/scratch-database";

/**
 * Issue 11, item 8: edge input answers 4xx naming the problem — never a 500 — and both databases accept exactly
 * the same inputs: what PostgreSQL cannot store (a NUL byte, an unpaired surrogate) is refused on SQLite too,
 * instead of being stored there (or silently rewritten to U+FFFD). (A path such as /api/tasks/%C0%AE never
 * decodes; the proxy answers it — test/lib/http/security-headers.test.ts and e2e/hardening.spec.ts.)
 */
let t: TestDatabase;
let agent = "";
let admin = "";
let taskId = "";

beforeAll(async () => {
  t = await createTestDatabase();
  t.install();
  agent = (await createApiToken(t.database, { name: "agent-edge", role: "agent" })).token;
  admin = (await createApiToken(t.database, { name: "admin-edge", role: "admin" })).token;
  taskId = (await json(await call("POST", "/api/tasks", { token: agent, body: { title: "edge input" } }))).id;
});
afterAll(async () => t?.drop());

const counts = async () => ({
  tasks: await t.database.prisma.task.count(),
  workItems: await t.database.prisma.workItem.count(),
  events: await t.database.prisma.ledgerEvent.count(),
});
const raw = (text: string) => ({ rawBody: text, headers: { "content-type": "application/json" } });
const workItem = (input: string) => `{"kind":"local_worker","toolName":"tool.edge","mechanism":"abort_signal","intentVersion":1,"input":${input}}`;

/** Sends, expects the status and a message matching, and that nothing was written. */
async function refused(res: Promise<Response>, status: number, message: RegExp, field?: string) {
  const before = await counts();
  const response = await res;
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(status);
  expect(body.error.message).toMatch(message);
  if (field) expect(body.error.details?.field ?? body.error.issues?.[0]?.field).toBe(field);
  expect(await counts()).toEqual(before);
}

describe(`edge input (${testEngine()})`, () => {
  it("a NUL byte in a title → 400 naming the field (PostgreSQL answered 500; SQLite stored it)", async () => {
    await refused(call("POST", "/api/tasks", { token: agent, body: { title: "two\u0000chairs" } }), 400, /^title: contains a NUL character/, "title");
  });

  it("a lone surrogate in JSON (a title, or deep inside a work item's input) → 400 naming the field (PostgreSQL refused it with a 500; SQLite rewrote it to U+FFFD)", async () => {
    await refused(
      call("POST", "/api/tasks", { token: agent, ...raw('{"title":"chairs \\ud800"}') }),
      400,
      /^title: contains an unpaired UTF-16 surrogate/,
      "title",
    );
    await refused(
      call("POST", `/api/tasks/${taskId}/work-items`, { token: agent, ...raw(workItem('{"lines":[{"note":"x\\udc00"}]}')) }),
      400,
      /unpaired UTF-16 surrogate/,
      "input.lines.0.note",
    );
    await refused(call("POST", `/api/tasks/${taskId}/work-items`, { token: agent, ...raw(workItem('{"k\\u0000":1}')) }), 400, /NUL character/, "input (a key)");
  });

  it("valid Unicode (a surrogate pair, accents, RTL) is stored and returned unchanged by both databases", async () => {
    const title = "Ordre: 2 × chaises 🪑 — «Ünïcödé» עברית";
    const res = await call("POST", "/api/tasks", { token: agent, body: { title } });
    expect(res.status).toBe(201);
    const created = await json(res);
    expect(created.title).toBe(title);
    expect((await t.database.prisma.task.findUniqueOrThrow({ where: { id: created.id } })).title).toBe(title);
  });

  it("a 5,000-deep JSON input → 400 naming the field and the limit (was a 500: the stack overflowed)", async () => {
    const deep = `${"[".repeat(5000)}1${"]".repeat(5000)}`;
    await refused(
      call("POST", `/api/tasks/${taskId}/work-items`, { token: agent, ...raw(workItem(deep)) }),
      400,
      /^input(\.0)+: is nested more than 64 levels deep$/,
    );
  });

  it("a NUL byte in a path id or a query value → 400 (PostgreSQL answered 500)", async () => {
    await refused(call("GET", `/api/tasks/a${encodeURIComponent("\u0000")}b`, { token: agent }), 400, /^taskId: contains a NUL character/, "taskId");
    await refused(
      call("GET", `/api/tasks?conversationId=${encodeURIComponent("c\u0000")}`, { token: agent }),
      400,
      /^conversationId: contains a NUL character/,
      "conversationId",
    );
  });

  it("a version number beyond 32 bits → 400 naming the field (PostgreSQL answered 500; SQLite accepted it)", async () => {
    await refused(
      call("POST", `/api/tasks/${taskId}/work-items`, { token: agent, ...raw(workItem("1").replace('"intentVersion":1', '"intentVersion":9007199254740991')) }),
      400,
      /intentVersion/,
      "intentVersion",
    );
  });

  it("a sequence number beyond 32 bits in a query → 400 (was a 500 on PostgreSQL)", async () => {
    const res = await call("GET", "/api/admin/history?before=9007199254740991", { token: admin });
    expect(res.status).toBe(400);
    expect((await json(res)).error.issues[0].field).toBe("before");
  });

  it(`a body over ${MAX_BODY_BYTES} bytes → 413`, async () => {
    await refused(call("POST", "/api/tasks", { token: agent, body: { title: "big", ownerId: "x".repeat(MAX_BODY_BYTES) } }), 413, /larger than/);
  });

  it("Origin: null or a malformed Origin on a cookie write → 403 naming the problem (was a 500)", async () => {
    const cookie = (await call("POST", "/api/session", { body: { token: admin } })).headers.get("set-cookie")!.split(";")[0];
    const write = (origin: string) => call("POST", "/api/tasks", { body: { title: "csrf" }, headers: { cookie, origin, host: "localhost:3000" } });
    await refused(write("null"), 403, /Origin: null is never this site/);
    await refused(write("http://[::1"), 403, /not a valid origin/);
    await refused(write("not a url at all"), 403, /not a valid origin/);
    // (Better Auth's own endpoints skip their origin check under NODE_ENV=test: e2e/hardening.spec.ts checks them on the real server.)
  });
});
