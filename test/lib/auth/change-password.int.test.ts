import { randomInt } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET, POST } from "@/app/api/auth/[...all]/route";
import { createTestDatabase, type TestDatabase } from "@/lib/db/scratch-database";
import { getAccountProfile } from "../../../lib/auth/account-profile";
import { demoAccounts, seedDemoAccounts } from "../../../lib/auth/seed-demo-accounts";

/**
 * A person changes their own password, and signs out of their other browsers, through Better Auth's own
 * endpoints as mounted by Stopline (app/api/auth/[...all]/route.ts, called in-process) on a fresh database of
 * each engine: the old password stops working and the new one works, every other session ends at once while
 * the caller's browser keeps a (new) session, and a wrong current password or a short new one changes nothing.
 */

const ORIGIN = "http://localhost:3000";

let t: TestDatabase;

/**
 * Each request comes from its own client address: Better Auth limits /change-password and /sign-in to a few
 * calls per 10 s per address, and this file makes more than that on purpose.
 */
const address = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

function request(method: "GET" | "POST", path: string, { cookie, body }: { cookie?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = { origin: ORIGIN, "x-forwarded-for": address() };
  if (cookie) headers.cookie = cookie;
  if (body !== undefined) headers["content-type"] = "application/json";
  const req = new Request(`${ORIGIN}/api/auth${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return method === "GET" ? GET(req) : POST(req);
}

const signInResponse = (email: string, password: string) => request("POST", "/sign-in/email", { body: { email, password } });

/** Signs in through Better Auth's endpoint, as the browser does; returns the session cookie. */
async function signIn(email: string, password: string) {
  const res = await signInResponse(email, password);
  expect(res.status, await res.clone().text()).toBe(200);
  return sessionCookieOf(res)!;
}
const sessionCookieOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .find((c) => c.startsWith("better-auth.session_token=") && c.length > "better-auth.session_token=".length);

/** Whom this cookie signs in, per Better Auth (null: no session). */
async function whoIs(cookie: string): Promise<string | null> {
  const res = await request("GET", "/get-session", { cookie });
  expect(res.status).toBe(200);
  const data = (await res.json()) as { user?: { email: string } } | null;
  return data?.user?.email ?? null;
}

const changePassword = (cookie: string, currentPassword: string, newPassword: string) =>
  request("POST", "/change-password", { cookie, body: { currentPassword, newPassword, revokeOtherSessions: true } });

const userByEmail = (email: string) => t.database.prisma.user.findUniqueOrThrow({ where: { email } });
/** What a refused change must leave untouched: the stored hash and every session of the account. */
async function snapshot(email: string) {
  const user = await userByEmail(email);
  const credential = await t.database.prisma.account.findFirstOrThrow({ where: { userId: user.id, providerId: "credential" } });
  const sessions = await t.database.prisma.session.findMany({ where: { userId: user.id }, orderBy: { id: "asc" }, select: { id: true, token: true } });
  return { hash: credential.password, sessions };
}

const user2 = demoAccounts().find((a) => a.email === "user2@stopline.local")!;
const user1 = demoAccounts().find((a) => a.email === "user@stopline.local")!;

beforeAll(async () => {
  t = await createTestDatabase();
  t.install();
  await seedDemoAccounts(t.database);
});
afterAll(async () => t?.drop());

describe("POST /api/auth/change-password", () => {
  it("a wrong current password is refused and changes nothing: the hash and every session stay", async () => {
    const here = await signIn(user2.email, user2.password);
    const there = await signIn(user2.email, user2.password);
    const before = await snapshot(user2.email);
    expect(before.sessions).toHaveLength(2);

    const wrong = await changePassword(here, "not-my-password", "a-brand-new-password");
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ code: "INVALID_PASSWORD" });
    expect(await snapshot(user2.email)).toEqual(before);
    expect(await whoIs(here)).toBe(user2.email);
    expect(await whoIs(there)).toBe(user2.email);

    // A new password below the minimum (8) is refused too, even with the right current password.
    const short = await changePassword(here, user2.password, "short");
    expect(short.status).toBe(400);
    expect(await short.json()).toMatchObject({ code: "PASSWORD_TOO_SHORT" });
    expect(await snapshot(user2.email)).toEqual(before);

    // Without a session there is nothing to change.
    const anonymous = await request("POST", "/change-password", { body: { currentPassword: user2.password, newPassword: "a-brand-new-password" } });
    expect(anonymous.status).toBe(401);
    expect(await snapshot(user2.email)).toEqual(before);

    // The old password still signs in.
    expect((await signInResponse(user2.email, user2.password)).status).toBe(200);
    await t.database.prisma.session.deleteMany({ where: { userId: (await userByEmail(user2.email)).id } });
  });

  it("the old password stops working, the new one works, the other sessions end and this browser stays signed in", async () => {
    const here = await signIn(user2.email, user2.password);
    const there = await signIn(user2.email, user2.password);
    const elsewhere = await signIn(user2.email, user2.password);
    const otherPerson = await signIn(user1.email, user1.password);
    const before = await snapshot(user2.email);
    expect(before.sessions).toHaveLength(3);

    const newPassword = "a-much-better-passphrase";
    const changed = await changePassword(here, user2.password, newPassword);
    expect(changed.status, await changed.clone().text()).toBe(200);
    const body = (await changed.json()) as { token: string | null; user: { email: string } };
    expect(body.user.email).toBe(user2.email);
    expect(body.token).toEqual(expect.any(String));

    // The stored hash changed, and it is a hash, never the password itself.
    const after = await snapshot(user2.email);
    expect(after.hash).not.toBe(before.hash);
    expect(after.hash).not.toContain(newPassword);

    // Every earlier session of the account is gone — including the caller's old one …
    expect(after.sessions.map((s) => s.token)).toEqual([body.token]);
    expect(await whoIs(there)).toBeNull();
    expect(await whoIs(elsewhere)).toBeNull();
    expect(await whoIs(here)).toBeNull();
    // … and the caller's browser carries on with the new session Better Auth set in the response.
    const renewed = sessionCookieOf(changed);
    expect(renewed).toBeDefined();
    expect(await whoIs(renewed!)).toBe(user2.email);
    // Another person's session is untouched.
    expect(await whoIs(otherPerson)).toBe(user1.email);

    // The old password fails; the new one works.
    const old = await signInResponse(user2.email, user2.password);
    expect(old.status).toBe(401);
    expect(await signIn(user2.email, newPassword)).toMatch(/^better-auth\.session_token=/);

    // Changing it back works the same way (the e2e spec relies on it).
    const back = await changePassword(renewed!, newPassword, user2.password);
    expect(back.status, await back.clone().text()).toBe(200);
    expect((await signInResponse(user2.email, newPassword)).status).toBe(401);
    expect((await signInResponse(user2.email, user2.password)).status).toBe(200);
  });
});

describe("POST /api/auth/revoke-other-sessions", () => {
  it("ends every other session of the account, keeps this one, leaves the password; the account page counts them", async () => {
    const here = await signIn(user1.email, user1.password);
    const there = await signIn(user1.email, user1.password);
    const hashBefore = (await snapshot(user1.email)).hash;

    const profile = await getAccountProfile(t.database, new Headers({ cookie: here }));
    expect(profile).toMatchObject({ email: user1.email, name: "Uma User", role: "user", hasPassword: true });
    expect(profile!.otherSessions).toBeGreaterThanOrEqual(1);

    const revoked = await request("POST", "/revoke-other-sessions", { cookie: here, body: {} });
    expect(revoked.status, await revoked.clone().text()).toBe(200);
    expect(await revoked.json()).toEqual({ status: true });

    expect(await whoIs(here)).toBe(user1.email);
    expect(await whoIs(there)).toBeNull();
    const after = await snapshot(user1.email);
    expect(after.sessions).toHaveLength(1);
    expect(after.hash).toBe(hashBefore);
    expect((await getAccountProfile(t.database, new Headers({ cookie: here })))!.otherSessions).toBe(0);

    // Signed out, nothing to revoke, and no profile.
    expect((await request("POST", "/revoke-other-sessions", { body: {} })).status).toBe(401);
    expect(await getAccountProfile(t.database, new Headers({ cookie: there }))).toBeNull();
    expect(await getAccountProfile(t.database, new Headers())).toBeNull();
  });
});
