import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, json, type CallOptions } from "@/test/support/api-client";
import { createTestDatabase, type TestDatabase } from "@/lib/db/scratch-database";
import { auth } from "../../../lib/auth/better-auth";
import { demoAccounts, seedDemoAccounts } from "../../../lib/auth/seed-demo-accounts";
import { ACCOUNT_DISABLED_MESSAGE } from "../../../lib/auth/refuse-disabled-account";
import { createApiToken } from "../../../lib/auth/tokens";

/**
 * The admin API (issue 5: accounts and API tokens), through the real route handlers, Better Auth's own
 * sign-in endpoint and a fresh database of each engine. Scenarios, not units: a token is created, works,
 * is listed without its hash, is revoked and stops working; an account is created, signs in, is disabled
 * (its session stops at once, sign-in is refused), is enabled again; non-admins change nothing.
 */

const ORIGIN = "http://localhost:3000";
const ZERO_ID = "00000000-0000-4000-8000-000000000000";

let t: TestDatabase;
/** Machine principals: an admin token and the two non-admin token roles. */
const tokens: Record<"admin" | "agent" | "worker", string> = { admin: "", agent: "", worker: "" };
/** Session cookies of the demo people, by the local part of their e-mail address. */
const cookies: Record<string, string> = {};

async function signInResponse(email: string, password: string) {
  return auth(t.database).handler(
    new Request(`${ORIGIN}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: ORIGIN },
      body: JSON.stringify({ email, password }),
    }),
  );
}

/** Signs in through Better Auth's endpoint, as the browser does; returns the session cookie. */
async function signIn(email: string, password: string) {
  const res = await signInResponse(email, password);
  expect(res.status, await res.clone().text()).toBe(200);
  return res.headers.get("set-cookie")!.split(";")[0];
}

/** A same-origin browser request with a session cookie. */
const withCookie = (cookie: string, options: CallOptions = {}): CallOptions => ({
  ...options,
  headers: { cookie, origin: ORIGIN, host: "localhost:3000", "sec-fetch-site": "same-origin", ...options.headers },
});
const as = (who: string, options: CallOptions = {}) => withCookie(cookies[who], options);
const asToken = (role: keyof typeof tokens, options: CallOptions = {}): CallOptions => ({ ...options, token: tokens[role] });

const accountByEmail = (email: string) => t.database.prisma.user.findUniqueOrThrow({ where: { email } });
/** What the admin routes may change, to prove that a refused call changed none of it. */
const snapshot = async () => ({
  users: await t.database.prisma.user.findMany({ orderBy: { id: "asc" }, select: { id: true, role: true, disabledAt: true } }),
  tokens: await t.database.prisma.apiToken.findMany({ orderBy: { id: "asc" }, select: { id: true, revokedAt: true } }),
  credentials: await t.database.prisma.account.count(),
});

beforeAll(async () => {
  t = await createTestDatabase();
  t.install();
  for (const role of ["admin", "agent", "worker"] as const) tokens[role] = (await createApiToken(t.database, { name: `${role}-admin-test`, role })).token;
  await seedDemoAccounts(t.database);
  for (const a of demoAccounts()) cookies[a.email.split("@")[0]] = await signIn(a.email, a.password);
});
afterAll(async () => t?.drop());

describe("API tokens", () => {
  it("create → it authenticates → the list shows it without its hash → revoke → 401 at once; a second revoke is a 409", async () => {
    const created = await call("POST", "/api/tokens", as("admin", { body: { name: "ci worker", role: "worker" } }));
    expect(created.status).toBe(201);
    const { token, record } = await json(created);
    expect(token).toMatch(/^stl_/);
    expect(record).toMatchObject({ name: "ci worker", role: "worker", prefix: token.slice(0, 8) });

    // The new token works on a worker route (nothing queued: workItem is null).
    const claim = () => call("POST", "/api/workers/claim", { token, body: { workerId: "ci-1" } });
    const first = await claim();
    expect(first.status, await first.clone().text()).toBe(200);
    expect(await json(first)).toEqual({ workItem: null });

    const list = await json(await call("GET", "/api/tokens", as("admin")));
    const listed = list.tokens.find((x: { id: string }) => x.id === record.id);
    expect(Object.keys(listed).sort()).toEqual(["createdAt", "id", "lastUsedAt", "name", "prefix", "revokedAt", "role"]);
    expect(listed).toMatchObject({ name: "ci worker", role: "worker", prefix: token.slice(0, 8), revokedAt: null });
    expect(listed.lastUsedAt).not.toBeNull(); // the claim above used it
    expect(JSON.stringify(list)).not.toContain(token);
    const stored = await t.database.prisma.apiToken.findUniqueOrThrow({ where: { id: record.id } });
    expect(JSON.stringify(list)).not.toContain(stored.tokenHash);

    const revoked = await call("DELETE", `/api/tokens/${record.id}`, as("admin"));
    expect(revoked.status).toBe(200);
    expect((await json(revoked)).revokedAt).toEqual(expect.any(String));
    const refused = await claim();
    expect(refused.status).toBe(401);
    expect((await json(refused)).error.message).toMatch(/revoked/);

    const again = await call("DELETE", `/api/tokens/${record.id}`, as("admin"));
    expect(again.status).toBe(409);
    expect((await json(again)).error.message).toMatch(/already revoked/);
    expect((await call("DELETE", `/api/tokens/${ZERO_ID}`, as("admin"))).status).toBe(404);

    // Revoked tokens stay listed (last in the list), marked revoked.
    const after = (await json(await call("GET", "/api/tokens", { token: tokens.admin }))).tokens as { id: string; revokedAt: string | null }[];
    expect(after.find((x) => x.id === record.id)?.revokedAt).toEqual(expect.any(String));
    expect(after.at(-1)?.id).toBe(record.id);
  });

  it("POST /api/tokens - bad input is a 400 naming the field and writes nothing", async () => {
    const before = await t.database.prisma.apiToken.count();
    for (const [body, field] of [
      [{ name: "x", role: "user" }, "role"],
      [{ name: "   ", role: "agent" }, "name"],
      [{ role: "agent" }, "name"],
    ] as const) {
      const res = await call("POST", "/api/tokens", as("admin", { body }));
      expect(res.status).toBe(400);
      expect((await json(res)).error.issues.map((i: { field: string }) => i.field)).toContain(field);
    }
    expect(await t.database.prisma.apiToken.count()).toBe(before);
  });
});

describe("accounts", () => {
  it("create → sign in → disable (session ends at once, sign-in refused) → enable → sign in again", async () => {
    const created = await call(
      "POST",
      "/api/accounts",
      as("admin", { body: { name: "Olga Operator", email: "  Olga@Example.COM ", role: "operator", password: "correct horse" } }),
    );
    expect(created.status, await created.clone().text()).toBe(201);
    const account = await json(created);
    expect(account).toMatchObject({ name: "Olga Operator", email: "olga@example.com", role: "operator", disabledAt: null, activeSessions: 0 });
    expect(JSON.stringify(account)).not.toMatch(/password|correct horse/);
    // Better Auth's own hash (scrypt, salt:key), not the password.
    const credential = await t.database.prisma.account.findFirstOrThrow({ where: { userId: account.id, providerId: "credential" } });
    expect(credential.password).not.toContain("correct horse");
    expect(credential.password).toMatch(/^[0-9a-f]+:[0-9a-f]+$/);

    const cookie = await signIn("olga@example.com", "correct horse");
    expect((await call("GET", "/api/review-items", withCookie(cookie))).status).toBe(200); // an operator reads the queue
    const listed = (await json(await call("GET", "/api/accounts", as("admin")))).accounts.find((a: { id: string }) => a.id === account.id);
    expect(listed).toMatchObject({ email: "olga@example.com", role: "operator", activeSessions: 1, disabledAt: null });

    const disabled = await call("POST", `/api/accounts/${account.id}/disable`, as("admin"));
    expect(disabled.status, await disabled.clone().text()).toBe(200);
    expect(await json(disabled)).toMatchObject({ disabledAt: expect.any(String), activeSessions: 0 });
    expect(await t.database.prisma.session.count({ where: { userId: account.id } })).toBe(0);
    expect((await call("GET", "/api/review-items", withCookie(cookie))).status).toBe(401);
    const refused = await signInResponse("olga@example.com", "correct horse");
    expect(refused.status).toBe(403);
    expect((await refused.json()).message).toBe(ACCOUNT_DISABLED_MESSAGE);
    expect(await t.database.prisma.session.count({ where: { userId: account.id } })).toBe(0);
    // A wrong password still reads as a wrong password: the hook runs only after the password matched.
    expect((await signInResponse("olga@example.com", "wrong password")).status).toBe(401);
    // Disabling twice says so.
    const twice = await call("POST", `/api/accounts/${account.id}/disable`, as("admin"));
    expect(twice.status).toBe(409);
    expect((await json(twice)).error.message).toMatch(/already disabled/);

    const enabled = await call("POST", `/api/accounts/${account.id}/enable`, { token: tokens.admin });
    expect(enabled.status).toBe(200);
    expect(await json(enabled)).toMatchObject({ disabledAt: null });
    expect((await call("POST", `/api/accounts/${account.id}/enable`, { token: tokens.admin })).status).toBe(409);
    const again = await signIn("olga@example.com", "correct horse");
    expect((await call("GET", "/api/review-items", withCookie(again))).status).toBe(200);
  });

  it("a session that outlived the disable (created in the same instant) is not honoured", async () => {
    const res = await call(
      "POST",
      "/api/accounts",
      as("admin", { body: { name: "Race", email: "race@example.com", role: "support", password: "password-1" } }),
    );
    const { id } = await json(res);
    const cookie = await signIn("race@example.com", "password-1");
    expect((await call("GET", "/api/tasks", withCookie(cookie))).status).toBe(200);
    // As if a sign-in committed its session right after the disable deleted the others.
    await t.database.prisma.user.update({ where: { id }, data: { disabledAt: new Date() } });
    expect(await t.database.prisma.session.count({ where: { userId: id } })).toBe(1);
    expect((await call("GET", "/api/tasks", withCookie(cookie))).status).toBe(401);
  });

  it("PATCH /api/accounts/{id} - a role change takes effect on the person's next request", async () => {
    const { id } = await json(
      await call("POST", "/api/accounts", as("admin", { body: { name: "Rolf", email: "rolf@example.com", role: "support", password: "password-2" } })),
    );
    const cookie = await signIn("rolf@example.com", "password-2");
    expect((await call("GET", "/api/accounts", withCookie(cookie))).status).toBe(403);
    const changed = await call("PATCH", `/api/accounts/${id}`, as("admin", { body: { role: "admin" } }));
    expect(changed.status).toBe(200);
    expect(await json(changed)).toMatchObject({ role: "admin", activeSessions: 1 });
    expect((await call("GET", "/api/accounts", withCookie(cookie))).status).toBe(200);
    expect((await call("PATCH", `/api/accounts/${id}`, as("admin", { body: { role: "user" } }))).status).toBe(200);
    expect((await call("GET", "/api/accounts", withCookie(cookie))).status).toBe(403);
    expect((await call("PATCH", `/api/accounts/${ZERO_ID}`, as("admin", { body: { role: "user" } }))).status).toBe(404);
  });

  it("an admin cannot disable themselves; the last enabled admin keeps the role and cannot be disabled", async () => {
    const admin = await accountByEmail("admin@stopline.local");
    const self = await call("POST", `/api/accounts/${admin.id}/disable`, as("admin"));
    expect(self.status).toBe(409);
    const refusal = await json(self);
    expect(refusal.error.details.reason).toBe("self");
    expect(refusal.error.message).toMatch(/your own account/);

    // admin@ is the only admin: neither its own session nor an admin token may take that away.
    for (const res of [
      await call("PATCH", `/api/accounts/${admin.id}`, as("admin", { body: { role: "operator" } })),
      await call("PATCH", `/api/accounts/${admin.id}`, { token: tokens.admin, body: { role: "support" } }),
      await call("POST", `/api/accounts/${admin.id}/disable`, { token: tokens.admin }),
    ]) {
      expect(res.status).toBe(409);
      const body = await json(res);
      expect(body.error.details.reason).toBe("last_admin");
      expect(body.error.message).toMatch(/no enabled admin/);
    }
    expect(await accountByEmail("admin@stopline.local")).toMatchObject({ role: "admin", disabledAt: null });

    // A disabled admin does not count: with a second admin disabled, admin@ is still the last one.
    const second = await json(
      await call("POST", "/api/accounts", as("admin", { body: { name: "Second Admin", email: "admin2@example.com", role: "admin", password: "password-3" } })),
    );
    expect((await call("POST", `/api/accounts/${second.id}/disable`, as("admin"))).status).toBe(200);
    expect((await call("PATCH", `/api/accounts/${admin.id}`, { token: tokens.admin, body: { role: "operator" } })).status).toBe(409);
    // Enabled again, the second admin makes it possible (and then it is the last one itself).
    expect((await call("POST", `/api/accounts/${second.id}/enable`, as("admin"))).status).toBe(200);
    const demoted = await call("PATCH", `/api/accounts/${second.id}`, as("admin", { body: { role: "operator" } }));
    expect(demoted.status).toBe(200);
    expect((await call("POST", `/api/accounts/${admin.id}/disable`, { token: tokens.admin })).status).toBe(409);
  });

  it("POST /api/accounts - a taken e-mail address is a 409 that says so (in any letter case)", async () => {
    const before = await t.database.prisma.user.count();
    const res = await call(
      "POST",
      "/api/accounts",
      as("admin", { body: { name: "Copy", email: "Operator@Stopline.local", role: "user", password: "password-4" } }),
    );
    expect(res.status).toBe(409);
    const body = await json(res);
    expect(body.error.message).toMatch(/operator@stopline\.local already exists/);
    expect(body.error.details.field).toBe("email");
    expect(await t.database.prisma.user.count()).toBe(before);
  });

  it("bad input is a 400 naming the field and writes nothing", async () => {
    const before = await snapshot();
    const valid = { name: "Val Id", email: "valid@example.com", role: "user", password: "long enough" };
    for (const [body, field] of [
      [{ ...valid, password: "short" }, "password"],
      [{ ...valid, email: "not-an-address" }, "email"],
      [{ ...valid, role: "root" }, "role"],
      [{ ...valid, name: "" }, "name"],
      [{ ...valid, disabledAt: null }, ""],
    ] as const) {
      const res = await call("POST", "/api/accounts", as("admin", { body }));
      expect(res.status, JSON.stringify(body)).toBe(400);
      const issues = (await json(res)).error.issues as { field: string; message: string }[];
      if (field) expect(issues.map((i) => i.field)).toContain(field);
    }
    const short = await json(await call("POST", "/api/accounts", as("admin", { body: { ...valid, password: "1234567" } })));
    expect(short.error.message).toMatch(/password: must be at least 8 characters/);
    const user = await accountByEmail("user@stopline.local");
    const role = await call("PATCH", `/api/accounts/${user.id}`, as("admin", { body: { role: "superuser" } }));
    expect(role.status).toBe(400);
    expect((await json(role)).error.issues[0].field).toBe("role");
    expect(await snapshot()).toEqual(before);
  });
});

describe("only admins administer", () => {
  it("operator, support and user sessions and agent and worker tokens get 403 on every admin route; nothing changes", async () => {
    const target = await accountByEmail("user2@stopline.local");
    const someToken = (await t.database.prisma.apiToken.findFirstOrThrow({ where: { revokedAt: null, role: "agent" } })).id;
    const before = await snapshot();
    const calls: [Parameters<typeof call>[0], string, unknown?][] = [
      ["GET", "/api/tokens"],
      ["POST", "/api/tokens", { name: "sneaky", role: "admin" }],
      ["DELETE", `/api/tokens/${someToken}`],
      ["GET", "/api/accounts"],
      ["POST", "/api/accounts", { name: "Sneaky", email: "sneaky@example.com", role: "admin", password: "password-5" }],
      ["PATCH", `/api/accounts/${target.id}`, { role: "admin" }],
      ["POST", `/api/accounts/${target.id}/disable`],
      ["POST", `/api/accounts/${target.id}/enable`],
    ];
    const callers: [string, CallOptions][] = [
      ["operator", as("operator")],
      ["support", as("support")],
      ["user", as("user")],
      ["agent token", asToken("agent")],
      ["worker token", asToken("worker")],
    ];
    for (const [who, options] of callers) {
      for (const [method, path, body] of calls) {
        const res = await call(method, path, { ...options, ...(body ? { body } : {}) });
        expect(res.status, `${who}: ${method} ${path}`).toBe(403);
      }
    }
    expect((await call("GET", "/api/accounts")).status).toBe(401);
    expect(await snapshot()).toEqual(before);
  });

  it("a cross-site write with an admin's session cookie is refused", async () => {
    const before = await snapshot();
    const evil = { origin: "https://evil.example", "sec-fetch-site": "cross-site" };
    const res = await call("POST", "/api/tokens", as("admin", { body: { name: "csrf", role: "admin" }, headers: evil }));
    expect(res.status).toBe(403);
    const target = await accountByEmail("user2@stopline.local");
    expect((await call("POST", `/api/accounts/${target.id}/disable`, as("admin", { headers: evil }))).status).toBe(403);
    expect(await snapshot()).toEqual(before);
  });
});
