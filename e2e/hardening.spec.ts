import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { connect } from "node:net";
import os from "node:os";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { E2E_BOOTSTRAP_TOKEN, E2E_PORT } from "./env";

/**
 * Issue 11 against the real server, as an attacker and a careless operator would try it:
 * - the security headers and the nonce-based CSP (no violation while the pages run), the open redirect after
 *   sign-in, the edge requests that used to answer 500 (%C0%AE, Origin null) — on the suite's server;
 * - the sign-in limit when X-Forwarded-For is rotated, and the default binding to 127.0.0.1 — on a server of
 *   its own (scripts/start/serve.ts, fresh database), so its counters touch no other test;
 * - `kill -9` of `npm start`, a start that finds its own stale server, and demo accounts on a non-loopback
 *   HOST — through the real `npm start` (the build the suite's server made is reused).
 */
const ROOT = path.resolve(import.meta.dirname, "..");
const TOKEN = E2E_BOOTSTRAP_TOKEN;
const OWN_PORT = E2E_PORT + 2; // the suite's server uses E2E_PORT and its demo services E2E_PORT + 1
const START_PORT = E2E_PORT + 4;
const children: ChildProcess[] = [];

test.describe.configure({ mode: "serial" });
test.afterAll(() => {
  for (const c of children)
    if (c.pid && c.exitCode === null)
      try {
        process.kill(-c.pid, "SIGKILL");
      } catch {
        /* gone */
      }
});

const shot = (page: Page, name: string) => page.screenshot({ path: `output/playwright/hardening-${name}.png`, fullPage: true });

test("security headers: every page carries a nonce CSP that Next's scripts satisfy — no violation, the page works", async ({ page }) => {
  const violations: string[] = [];
  page.on("console", (m) => /Content Security Policy|Refused to (execute|load)/i.test(m.text()) && violations.push(m.text()));
  const nonces = new Set<string>();
  for (const p of ["/", "/sign-in", "/console", "/chat", "/api-docs"]) {
    const response = await page.goto(p);
    expect(response?.status(), p).toBe(200);
    const headers = response!.headers();
    const csp = headers["content-security-policy"];
    expect(csp, p).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    nonces.add(/'nonce-([^']+)'/.exec(csp)![1]);
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    expect(headers["x-frame-options"]).toBe("DENY");
    expect(headers["strict-transport-security"], "no HSTS over plain http").toBeUndefined();
    // Every script the page has carries this response's nonce.
    const scripts = await page.locator("script").evaluateAll((els) => els.map((e) => (e as HTMLScriptElement).nonce));
    expect(scripts.length).toBeGreaterThan(0);
  }
  expect(nonces.size, "a fresh nonce per response").toBe(5);
  // Hydrated: the sign-in form reacts (client-side validation runs only if the scripts ran).
  await page.goto("/sign-in");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("Enter your e-mail address and password.")).toBeVisible();
  expect(violations).toEqual([]);
  await shot(page, "sign-in-with-csp");

  // Markup injected into the page (what an XSS would do) cannot run: an inline handler has no nonce.
  const injected = await page.evaluate(async () => {
    const violation = new Promise<string>((resolve) =>
      document.addEventListener("securitypolicyviolation", (e) => resolve(e.violatedDirective), { once: true }),
    );
    document.body.insertAdjacentHTML(
      "beforeend",
      '<img alt="" src="data:," onerror="window.__injected = true"><img alt="" src="/nope.png" onerror="window.__injected = true">',
    );
    const directive = await Promise.race([violation, new Promise<string>((r) => setTimeout(() => r("none"), 3_000))]);
    return { ran: (window as unknown as { __injected?: boolean }).__injected === true, directive };
  });
  expect(injected.ran).toBe(false);
  expect(injected.directive).toMatch(/^script-src/);

  const api = await page.request.get("/api/openapi.json");
  expect(api.headers()["content-security-policy"]).toMatch(/^default-src 'none'/);
  // Served over HTTPS (as a trusted proxy says): HSTS. Untrusted here, so the claim is ignored.
  const claimed = await page.request.get("/sign-in", { headers: { "x-forwarded-proto": "https" } });
  expect(claimed.headers()["strict-transport-security"]).toBeUndefined();
});

test("edge requests that answered 500: a path id %C0%AE → 400; Origin null or malformed on Better Auth's sign-in → 403", async ({ request }) => {
  const bad = await request.get("/api/tasks/%C0%AE", { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(bad.status()).toBe(400);
  expect((await bad.json()).error.message).toMatch(/not valid percent-encoded UTF-8/);
  expect((await request.post("/api/tasks/%C0%AE/cancel", { headers: { authorization: `Bearer ${TOKEN}` }, data: {} })).status()).toBe(400);
  for (const origin of ["null", "http://[::1"]) {
    const res = await request.post("/api/auth/sign-in/email", { headers: { origin }, data: { email: "nobody@stopline.local", password: "whatever-1" } });
    expect(res.status(), origin).toBe(403);
  }
});

test("open redirect after sign-in: /sign-in?next=/\\evil.example/ stays on this site", async ({ page, baseURL }) => {
  for (const next of ["/\\evil.example/", "//evil.example/", "https://evil.example/"]) {
    await page.context().clearCookies();
    await page.goto(`/sign-in?next=${encodeURIComponent(next)}`);
    await page.getByLabel("Email").fill("user@stopline.local");
    await page.getByLabel("Password").fill("stopline-user-demo");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.pathname !== "/sign-in", { timeout: 15_000 });
    expect(new URL(page.url()).origin, next).toBe(new URL(baseURL!).origin);
    expect(new URL(page.url()).pathname).toBe("/chat");
  }
  // A path on this site is still honoured.
  await page.context().clearCookies();
  await page.goto(`/sign-in?next=${encodeURIComponent("/account")}`);
  await page.getByLabel("Email").fill("user@stopline.local");
  await page.getByLabel("Password").fill("stopline-user-demo");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL("**/account");
});

// ── servers of this spec's own ──────────────────────────────────────────────────────────────────────────

const env = (extra: Record<string, string>) => {
  const { NODE_CHANNEL_FD: _ipc, PORT: _p, HOST: _h, DATABASE_URL: _d, ...rest } = process.env;
  return { ...rest, NEXT_TELEMETRY_DISABLED: "1", STOPLINE_DEMO: "0", STOPLINE_WORKERS: "0", STOPLINE_BOOTSTRAP_TOKEN: TOKEN, ...extra };
};
const freshDb = (name: string) => {
  const file = path.join(ROOT, "output", `e2e-${E2E_PORT}-${name}.db`);
  for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
  return `file:./output/e2e-${E2E_PORT}-${name}.db`;
};
function run(args: string[], extra: Record<string, string>, command = process.execPath) {
  const child = spawn(command, args, { cwd: ROOT, env: env(extra), stdio: ["pipe", "pipe", "pipe"], detached: true });
  children.push(child);
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  return { child, output: () => output };
}
async function answers(port: number, host = "127.0.0.1") {
  try {
    await fetch(`http://${host}:${port}/api/openapi.json`, { signal: AbortSignal.timeout(2_000) });
    return true;
  } catch {
    return false;
  }
}
const portOpen = (port: number, host: string) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, host);
    s.once("connect", () => (s.destroy(), resolve(true)));
    s.once("error", () => resolve(false));
    s.setTimeout(2_000, () => (s.destroy(), resolve(false)));
  });
const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => child.once("exit", () => r()));

test("login rate limit keyed on the real peer: rotating X-Forwarded-For gets nothing; only 127.0.0.1 is bound by default", async () => {
  test.setTimeout(120_000);
  const url = freshDb("ratelimit");
  spawnSync(process.execPath, ["--import", "tsx", "scripts/db-migrate.ts"], { cwd: ROOT, env: env({ DATABASE_URL: url }) });
  const server = run(["--import", "tsx", "scripts/start/serve.ts"], {
    PORT: String(OWN_PORT),
    DATABASE_URL: url,
    STOPLINE_SIGNIN_MAX_FAILURES_PER_ADDRESS: "8",
    STOPLINE_BACKGROUND: "0",
  });
  await expect.poll(() => answers(OWN_PORT), { timeout: 60_000 }).toBe(true);
  expect(server.output()).toMatch(/serving on http:\/\/127\.0\.0\.1:\d+/);

  const attempt = (i: number) =>
    fetch(`http://127.0.0.1:${OWN_PORT}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: `http://127.0.0.1:${OWN_PORT}`, "x-forwarded-for": `203.0.113.${i}` },
      body: JSON.stringify({ email: `guess-${i}@stopline.local`, password: `password-${i}` }),
    });
  const statuses: number[] = [];
  for (let i = 1; i <= 10; i++) statuses.push((await attempt(i)).status);
  expect(statuses.slice(0, 8)).toEqual([401, 401, 401, 401, 401, 401, 401, 401]);
  expect(statuses.slice(8)).toEqual([429, 429]);
  const limited = await attempt(99);
  expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
  expect((await limited.json()).message).toMatch(/from your address/);

  // Bound to 127.0.0.1 only: the machine's other addresses do not answer.
  const external = Object.values(os.networkInterfaces())
    .flat()
    .find((i) => i && i.family === "IPv4" && !i.internal);
  if (external) expect(await portOpen(OWN_PORT, external.address)).toBe(false);

  process.kill(-server.child.pid!, "SIGTERM");
  await exited(server.child);
});

test("kill -9 of npm start: the server ends with it and frees the port; the next start works", async () => {
  test.setTimeout(180_000);
  const url = freshDb("kill9");
  const serverFile = path.join(ROOT, "data", `server-${START_PORT}.json`);
  const npm = run(["start"], { PORT: String(START_PORT), DATABASE_URL: url }, "npm");
  await expect.poll(() => answers(START_PORT), { timeout: 120_000 }).toBe(true);
  expect(existsSync(serverFile)).toBe(true);

  process.kill(npm.child.pid!, "SIGKILL"); // npm itself, not its group
  await expect.poll(() => portOpen(START_PORT, "127.0.0.1"), { timeout: 10_000 }).toBe(false);
  expect(existsSync(serverFile), "the server removed its record as it stopped").toBe(false);

  const again = run(["--import", "tsx", "scripts/start.ts"], { PORT: String(START_PORT), DATABASE_URL: url });
  await expect.poll(() => answers(START_PORT), { timeout: 60_000 }).toBe(true);
  process.kill(again.child.pid!, "SIGKILL"); // this time the start process itself
  await expect.poll(() => portOpen(START_PORT, "127.0.0.1"), { timeout: 10_000 }).toBe(false);
});

test("a start that finds its own stale server on the port says so, with the pid and what to do", async () => {
  test.setTimeout(120_000);
  const url = freshDb("stale");
  spawnSync(process.execPath, ["--import", "tsx", "scripts/db-migrate.ts"], { cwd: ROOT, env: env({ DATABASE_URL: url }) });
  // A server left behind (started without a parent to end with, as an older npm start left next-server).
  const stale = run(["--import", "tsx", "scripts/start/serve.ts"], { PORT: String(START_PORT), DATABASE_URL: url, STOPLINE_BACKGROUND: "0" });
  await expect.poll(() => answers(START_PORT), { timeout: 60_000 }).toBe(true);
  const start = run(["--import", "tsx", "scripts/start.ts"], { PORT: String(START_PORT), DATABASE_URL: url });
  await exited(start.child);
  expect(start.child.exitCode).toBe(1);
  expect(start.output()).toContain(`port ${START_PORT} is still held by a Stopline server from an earlier start of this directory (pid ${stale.child.pid}`);
  expect(start.output()).toContain(`kill ${stale.child.pid}`);
  process.kill(-stale.child.pid!, "SIGTERM");
  await exited(stale.child);
});

test("HOST=0.0.0.0: no demo accounts are created — and a database whose demo accounts keep their published passwords is not served there", async () => {
  test.setTimeout(120_000);
  const url = freshDb("host");
  const open = run(["--import", "tsx", "scripts/start.ts"], { PORT: String(START_PORT), HOST: "0.0.0.0", DATABASE_URL: url });
  await expect.poll(() => answers(START_PORT), { timeout: 60_000 }).toBe(true);
  expect(open.output()).toMatch(/demo accounts: not created — HOST=0\.0\.0\.0/);
  expect(open.output()).not.toMatch(/password: stopline-admin-demo/);
  const signIn = await fetch(`http://127.0.0.1:${START_PORT}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: `http://127.0.0.1:${START_PORT}` },
    body: JSON.stringify({ email: "admin@stopline.local", password: "stopline-admin-demo" }),
  });
  expect(signIn.status).toBe(401);
  process.kill(open.child.pid!, "SIGTERM");
  await exited(open.child);
  await expect.poll(() => portOpen(START_PORT, "127.0.0.1"), { timeout: 10_000 }).toBe(false);

  // The same database started on loopback gets its demo accounts; then asked to serve the network, it refuses.
  const local = run(["--import", "tsx", "scripts/start.ts"], { PORT: String(START_PORT), DATABASE_URL: url });
  await expect.poll(() => answers(START_PORT), { timeout: 60_000 }).toBe(true);
  process.kill(local.child.pid!, "SIGTERM");
  await exited(local.child);
  await expect.poll(() => portOpen(START_PORT, "127.0.0.1"), { timeout: 10_000 }).toBe(false);
  const refused = run(["--import", "tsx", "scripts/start.ts"], { PORT: String(START_PORT), HOST: "0.0.0.0", DATABASE_URL: url });
  await exited(refused.child);
  expect(refused.child.exitCode).toBe(1);
  expect(refused.output()).toMatch(/refusing to serve on 0\.0\.0\.0: these demo accounts still have their published passwords: .*admin@stopline\.local/);
});
