import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as authPost } from "@/app/api/auth/[...all]/route";
import { seedDemoAccounts } from "@/lib/auth/seed-demo-accounts";
import { createApiToken } from "@/lib/auth/tokens";
import { call, json } from "@/test/support/api-client";
import { createTestDatabase, type TestDatabase } from "@/lib/db/scratch-database";

/**
 * Issue 11: the sign-in rate limit (item 5) and the console cookie (safe defaults), through the real route
 * handlers on both databases. (That a client-written X-Forwarded-For never reaches these handlers from an
 * untrusted peer is the server's part — test/lib/http/client-address.test.ts and e2e/hardening.spec.ts.)
 */
const ORIGIN = "http://localhost:3000";
let t: TestDatabase;
let admin = { token: "", id: "" };

beforeAll(async () => {
  process.env.STOPLINE_SIGNIN_MAX_FAILURES_PER_ACCOUNT = "5";
  process.env.STOPLINE_SIGNIN_MAX_FAILURES_PER_ADDRESS = "12";
  t = await createTestDatabase();
  t.install();
  const created = await createApiToken(t.database, { name: "console-admin", role: "admin" });
  admin = { token: created.token, id: created.record.id };
  await seedDemoAccounts(t.database);
});
afterAll(async () => {
  delete process.env.STOPLINE_SIGNIN_MAX_FAILURES_PER_ACCOUNT;
  delete process.env.STOPLINE_SIGNIN_MAX_FAILURES_PER_ADDRESS;
  await t?.drop();
});

const signIn = (email: string, password: string, address: string) =>
  authPost(
    new Request(`${ORIGIN}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: ORIGIN, "x-forwarded-for": address },
      body: JSON.stringify({ email, password }),
    }),
  );

describe("login rate limit (issue 11, item 5)", () => {
  it("password guessing on one account from rotating addresses: after 5 failures the account answers 429 with Retry-After — even to the right password", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await signIn("operator@stopline.local", `wrong-guess-${i}`, `198.51.100.${i + 1}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const limited = await signIn("operator@stopline.local", "stopline-operator-demo", "198.51.100.99");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await limited.json()).message).toMatch(/too many failed sign-in attempts from this account: try again in \d+ minutes/);
    expect(limited.headers.get("set-cookie")).toBeNull();
    // Other accounts are not affected.
    expect((await signIn("support@stopline.local", "stopline-support-demo", "198.51.100.99")).status).toBe(200);
  });

  it("password spraying from one address across accounts: the address is limited after 12 failures; a success clears only its account", async () => {
    const address = "203.0.113.50";
    expect((await signIn("user@stopline.local", "stopline-user-demo", address)).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await signIn(`nobody-${i}@stopline.local`, "password123", address)).status);
    expect(statuses.every((s) => s === 401)).toBe(true);
    const limited = await signIn("user@stopline.local", "stopline-user-demo", address);
    expect(limited.status).toBe(429);
    expect((await limited.json()).message).toMatch(/from your address/);
    expect((await signIn("user@stopline.local", "stopline-user-demo", "203.0.113.51")).status).toBe(200);
  });

  it("console sign-in with a guessed token counts against the address too", async () => {
    const address = "192.0.2.77";
    for (let i = 0; i < 12; i++) {
      expect((await call("POST", "/api/session", { body: { token: `stl_guess_${i}` }, headers: { "x-forwarded-for": address } })).status).toBe(401);
    }
    const limited = await call("POST", "/api/session", { body: { token: admin.token }, headers: { "x-forwarded-for": address } });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await json(limited)).error.code).toBe("too_many_requests");
  });
});

describe("the console cookie holds a session id, not the admin token (issue 11, safe defaults)", () => {
  it("signing in sets a cookie with a random session id; the token appears nowhere in it and nothing stores it", async () => {
    const res = await call("POST", "/api/session", { body: { token: admin.token } });
    expect(res.status).toBe(200);
    const setCookie = res.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^stopline_session=sls_[\w-]{40,};/);
    expect(setCookie).not.toContain(admin.token);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    const cookie = setCookie.split(";")[0];
    expect((await call("GET", "/api/tasks", { headers: { cookie } })).status).toBe(200);
    const sessions = await t.database.prisma.consoleSession.findMany();
    expect(JSON.stringify(sessions)).not.toContain(admin.token);
    expect(JSON.stringify(sessions)).not.toContain(cookie.split("=")[1]); // only its hash is stored
  });

  it("behind a trusted HTTPS proxy the cookie is Secure", async () => {
    const res = await call("POST", "/api/session", { body: { token: admin.token }, headers: { "x-forwarded-proto": "https" } });
    expect(res.headers.get("set-cookie")).toMatch(/; Secure/);
  });

  it("a cookie holding the raw admin token (the old scheme) opens nothing", async () => {
    expect((await call("GET", "/api/tasks", { headers: { cookie: `stopline_session=${admin.token}` } })).status).toBe(401);
  });

  it("sign-out ends the session server-side: the same cookie, replayed, is refused", async () => {
    const cookie = (await call("POST", "/api/session", { body: { token: admin.token } })).headers.get("set-cookie")!.split(";")[0];
    expect((await call("GET", "/api/tasks", { headers: { cookie } })).status).toBe(200);
    expect(
      (await call("DELETE", "/api/session", { headers: { cookie, origin: ORIGIN, host: "localhost:3000", "sec-fetch-site": "same-origin" } })).status,
    ).toBe(204);
    expect((await call("GET", "/api/tasks", { headers: { cookie } })).status).toBe(401);
  });

  it("revoking the token ends its console sessions at once", async () => {
    const other = await createApiToken(t.database, { name: "soon revoked", role: "admin" });
    const cookie = (await call("POST", "/api/session", { body: { token: other.token } })).headers.get("set-cookie")!.split(";")[0];
    expect((await call("GET", "/api/tasks", { headers: { cookie } })).status).toBe(200);
    expect((await call("DELETE", `/api/tokens/${other.record.id}`, { token: admin.token })).status).toBe(200);
    expect((await call("GET", "/api/tasks", { headers: { cookie } })).status).toBe(401);
  });
});
