import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEventStream } from "@/lib/events/read-sse";
import { createTask } from "@/lib/ledger/create-task";
import { call, json, type CallOptions } from "@/test/support/api-client";
import { createTestDatabase, type TestDatabase } from "@/lib/db/scratch-database";
import { auth } from "../../../lib/auth/better-auth";
import { demoAccounts, seedDemoAccounts } from "../../../lib/auth/seed-demo-accounts";
import { createApiToken, SETUP_ACTOR } from "../../../lib/auth/tokens";

/**
 * Every administrative action leaves a record (issue 5): API tokens created and revoked, accounts created,
 * re-roled, disabled and enabled, escalation channels added and removed each append one ledger event — the
 * admin or operator as actor, what changed as data, never a secret — and GET /api/admin/history lists them for
 * admins. Scenarios through the real route handlers, Better Auth's sign-in and a fresh database of each engine.
 */

const ORIGIN = "http://localhost:3000";
const ZERO_ID = "00000000-0000-4000-8000-000000000000";
const ADMIN = "admin:admin@stopline.local";
const OPERATOR = "operator:operator@stopline.local";
const WEBHOOK_SECRET = "whsec_history_test_secret_0001";

let t: TestDatabase;
let adminToken = "";
let agentToken = "";
let workerToken = "";
const cookies: Record<string, string> = {};
/** Every secret this test made: none may appear in any ledger row. */
const secrets: string[] = [];

async function signIn(email: string, password: string) {
  const res = await auth(t.database).handler(
    new Request(`${ORIGIN}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: ORIGIN },
      body: JSON.stringify({ email, password }),
    }),
  );
  expect(res.status, await res.clone().text()).toBe(200);
  return res.headers.get("set-cookie")!.split(";")[0];
}
const as = (who: string, options: CallOptions = {}): CallOptions => ({
  ...options,
  headers: { cookie: cookies[who], origin: ORIGIN, host: "localhost:3000", "sec-fetch-site": "same-origin", ...options.headers },
});

type EventRow = Awaited<ReturnType<typeof eventsAfter>>[number];
const lastSeq = async () => (await t.database.prisma.ledgerEvent.findFirst({ orderBy: { seq: "desc" }, select: { seq: true } }))?.seq ?? 0;
const eventsAfter = (seq: number) => t.database.prisma.ledgerEvent.findMany({ where: { seq: { gt: seq } }, orderBy: { seq: "asc" } });
/** Runs `action` and returns the ledger events it appended. */
async function recorded(action: () => Promise<unknown>): Promise<EventRow[]> {
  const before = await lastSeq();
  await action();
  return eventsAfter(before);
}
/** The whole ledger, as text: a secret must not be anywhere in it (data, reason, states, actor). */
const wholeLedger = async () => JSON.stringify(await t.database.prisma.ledgerEvent.findMany());
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

beforeAll(async () => {
  t = await createTestDatabase();
  t.install();
  adminToken = (await createApiToken(t.database, { name: "history-admin", role: "admin" })).token;
  agentToken = (await createApiToken(t.database, { name: "history-agent", role: "agent" })).token;
  workerToken = (await createApiToken(t.database, { name: "history-worker", role: "worker" })).token;
  secrets.push(adminToken, agentToken, workerToken);
  await seedDemoAccounts(t.database);
  for (const a of demoAccounts()) {
    cookies[a.email.split("@")[0]] = await signIn(a.email, a.password);
    secrets.push(a.password);
  }
});
afterAll(async () => t?.drop());

describe("each administrative action appends one event, by whoever did it, with no secret", () => {
  it("tokens made outside the API (npm run token:create, fixtures) are recorded as made at setup", async () => {
    const rows = await t.database.prisma.ledgerEvent.findMany({ where: { type: "token.created" }, orderBy: { seq: "asc" } });
    expect(rows.map((r) => [r.actor, (r.data as { name: string }).name])).toEqual([
      [SETUP_ACTOR, "history-admin"],
      [SETUP_ACTOR, "history-agent"],
      [SETUP_ACTOR, "history-worker"],
    ]);
  });

  it("an admin creates and revokes a token → token.created and token.revoked by the admin; the token and its hash are in no event", async () => {
    let token = "";
    let id = "";
    const created = await recorded(async () => {
      const res = await call("POST", "/api/tokens", as("admin", { body: { name: "nightly worker", role: "worker" } }));
      expect(res.status).toBe(201);
      ({
        token,
        record: { id },
      } = await json(res));
    });
    secrets.push(token);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({
      taskId: null,
      workItemId: null,
      entityType: "token",
      entityId: id,
      actor: ADMIN,
      type: "token.created",
      fromState: null,
      toState: "active",
      data: { name: "nightly worker", role: "worker", prefix: token.slice(0, 8) },
    });

    const revoked = await recorded(async () => expect((await call("DELETE", `/api/tokens/${id}`, as("admin"))).status).toBe(200));
    expect(revoked).toHaveLength(1);
    expect(revoked[0]).toMatchObject({
      entityType: "token",
      entityId: id,
      actor: ADMIN,
      type: "token.revoked",
      fromState: "active",
      toState: "revoked",
      data: { name: "nightly worker", role: "worker" },
    });

    // No secret anywhere: not the token, not its stored hash — in these events or any other row of the ledger.
    const stored = await t.database.prisma.apiToken.findUniqueOrThrow({ where: { id } });
    expect(stored.tokenHash).toBe(sha256(token));
    for (const e of [...created, ...revoked]) {
      expect(Object.keys(e.data as object).sort()).toEqual(["name", "prefix", "role"]);
      expect(JSON.stringify(e)).not.toContain(token);
      expect(JSON.stringify(e)).not.toContain(stored.tokenHash);
    }
    const ledger = await wholeLedger();
    for (const row of await t.database.prisma.apiToken.findMany()) expect(ledger).not.toContain(row.tokenHash);
    expect(ledger).not.toContain(token);

    // An admin token acts under its own name.
    const [byToken] = await recorded(async () =>
      expect((await call("POST", "/api/tokens", { token: adminToken, body: { name: "ci agent", role: "agent" } })).status).toBe(201),
    );
    expect(byToken).toMatchObject({ type: "token.created", actor: "admin:history-admin" });
  });

  it("an admin creates an account → account.created with name, address and role, never the password (created through Better Auth, so appended right after it)", async () => {
    const password = "initial-password-for-rita";
    secrets.push(password);
    let id = "";
    const events = await recorded(async () => {
      const res = await call("POST", "/api/accounts", as("admin", { body: { name: "Rita Reviewer", email: "Rita@Example.com", role: "operator", password } }));
      expect(res.status, await res.clone().text()).toBe(201);
      id = (await json(res)).id;
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      taskId: null,
      entityType: "account",
      entityId: id,
      actor: ADMIN,
      type: "account.created",
      toState: "enabled",
      data: { email: "rita@example.com", name: "Rita Reviewer", role: "operator" },
    });
    const credential = await t.database.prisma.account.findFirstOrThrow({ where: { userId: id } });
    const ledger = await wholeLedger();
    expect(ledger).not.toContain(password);
    expect(ledger).not.toContain(credential.password!);
  });

  it("a role change records from → to; saving the role the account already has records nothing", async () => {
    const operator = await t.database.prisma.user.findUniqueOrThrow({ where: { email: "operator@stopline.local" } });
    const events = await recorded(async () => {
      expect((await call("PATCH", `/api/accounts/${operator.id}`, as("admin", { body: { role: "support" } }))).status).toBe(200);
      expect((await call("PATCH", `/api/accounts/${operator.id}`, as("admin", { body: { role: "support" } }))).status).toBe(200); // no change
      expect((await call("PATCH", `/api/accounts/${operator.id}`, as("admin", { body: { role: "operator" } }))).status).toBe(200);
    });
    expect(events.map((e) => [e.type, e.actor, e.entityId, e.fromState, e.toState, e.data])).toEqual([
      [
        "account.role_changed",
        ADMIN,
        operator.id,
        "operator",
        "support",
        { email: "operator@stopline.local", name: "Otto Operator", from: "operator", to: "support" },
      ],
      [
        "account.role_changed",
        ADMIN,
        operator.id,
        "support",
        "operator",
        { email: "operator@stopline.local", name: "Otto Operator", from: "support", to: "operator" },
      ],
    ]);
  });

  it("disable → account.disabled (with the sessions it ended); enable → account.enabled (disabled since when)", async () => {
    const support = await t.database.prisma.user.findUniqueOrThrow({ where: { email: "support@stopline.local" } });
    const sessions = await t.database.prisma.session.count({ where: { userId: support.id } });
    expect(sessions).toBeGreaterThan(0);
    const disabled = await recorded(async () => expect((await call("POST", `/api/accounts/${support.id}/disable`, as("admin"))).status).toBe(200));
    expect(disabled).toHaveLength(1);
    expect(disabled[0]).toMatchObject({
      entityType: "account",
      entityId: support.id,
      actor: ADMIN,
      type: "account.disabled",
      fromState: "enabled",
      toState: "disabled",
      data: { email: "support@stopline.local", name: "Sam Support", role: "support", sessionsEnded: sessions },
    });
    const disabledAt = (await t.database.prisma.user.findUniqueOrThrow({ where: { id: support.id } })).disabledAt!;

    const enabled = await recorded(async () => expect((await call("POST", `/api/accounts/${support.id}/enable`, { token: adminToken })).status).toBe(200));
    expect(enabled).toHaveLength(1);
    expect(enabled[0]).toMatchObject({
      entityType: "account",
      entityId: support.id,
      actor: "admin:history-admin",
      type: "account.enabled",
      fromState: "disabled",
      toState: "enabled",
      data: { email: "support@stopline.local", role: "support", disabledSince: disabledAt.toISOString() },
    });
    cookies.support = await signIn("support@stopline.local", demoAccounts().find((a) => a.role === "support")!.password);
  });

  it("an operator adds and removes channels → escalation_channel.created / .removed by the operator; no secret, no full URL", async () => {
    const webhookUrl = "https://hooks.example.com/stopline/incoming?token=url-carried-credential-123";
    const slackUrl = "https://hooks.slack.example/services/T000/B000/slack-path-credential-XYZW";
    secrets.push(WEBHOOK_SECRET, "url-carried-credential-123", "slack-path-credential");
    const ids: string[] = [];
    const created = await recorded(async () => {
      for (const body of [
        { name: "pager bridge", kind: "webhook", url: webhookUrl, secret: WEBHOOK_SECRET },
        { name: "ops room", kind: "slack", url: slackUrl },
      ]) {
        const res = await call("POST", "/api/escalation-channels", as("operator", { body }));
        expect(res.status, await res.clone().text()).toBe(201);
        ids.push((await json(res)).id);
      }
    });
    expect(created.map((e) => [e.type, e.entityType, e.entityId, e.actor, e.toState])).toEqual([
      ["escalation_channel.created", "escalationChannel", ids[0], OPERATOR, "active"],
      ["escalation_channel.created", "escalationChannel", ids[1], OPERATOR, "active"],
    ]);
    expect(created[0].data).toEqual({ name: "pager bridge", kind: "webhook", urlPreview: "https://hooks.example.com/stopline/incoming?…", hasSecret: true });
    expect(created[1].data).toMatchObject({ name: "ops room", kind: "slack", hasSecret: false });

    const removed = await recorded(async () => {
      expect((await call("DELETE", `/api/escalation-channels/${ids[0]}`, as("operator"))).status).toBe(200);
      expect((await call("DELETE", `/api/escalation-channels/${ids[0]}`, as("admin"))).status).toBe(200); // already removed: nothing to record
      expect((await call("DELETE", `/api/escalation-channels/${ids[1]}`, as("admin"))).status).toBe(200);
    });
    expect(removed.map((e) => [e.type, e.entityId, e.actor, e.fromState, e.toState])).toEqual([
      ["escalation_channel.removed", ids[0], OPERATOR, "active", "removed"],
      ["escalation_channel.removed", ids[1], ADMIN, "active", "removed"],
    ]);
    expect(removed[0].data).toMatchObject({ name: "pager bridge", pendingDeliveriesFailed: 0 });
    const ledger = await wholeLedger();
    for (const secret of [WEBHOOK_SECRET, webhookUrl, slackUrl, "url-carried-credential-123", "slack-path-credential"]) expect(ledger).not.toContain(secret);
  });
});

describe("a refused action writes no event", () => {
  it("409s (last admin, self-disable, already revoked, not disabled, taken address), 404s and 400s leave the ledger as it was", async () => {
    const me = await t.database.prisma.user.findUniqueOrThrow({ where: { email: "admin@stopline.local" } });
    const operator = await t.database.prisma.user.findUniqueOrThrow({ where: { email: "operator@stopline.local" } });
    const { record: token } = await json(await call("POST", "/api/tokens", as("admin", { body: { name: "to revoke twice", role: "agent" } })));
    expect((await call("DELETE", `/api/tokens/${token.id}`, as("admin"))).status).toBe(200);

    const refusals: [string, string, CallOptions, number][] = [
      ["PATCH", `/api/accounts/${me.id}`, as("admin", { body: { role: "operator" } }), 409], // the last enabled admin
      ["POST", `/api/accounts/${me.id}/disable`, as("admin"), 409], // yourself
      ["POST", `/api/accounts/${me.id}/disable`, { token: adminToken }, 409], // the last enabled admin
      ["POST", `/api/accounts/${operator.id}/enable`, as("admin"), 409], // not disabled
      ["DELETE", `/api/tokens/${token.id}`, as("admin"), 409], // already revoked
      ["DELETE", `/api/tokens/${ZERO_ID}`, as("admin"), 404],
      ["PATCH", `/api/accounts/${ZERO_ID}`, as("admin", { body: { role: "user" } }), 404],
      ["DELETE", `/api/escalation-channels/${ZERO_ID}`, as("admin"), 404],
      ["POST", "/api/accounts", as("admin", { body: { name: "Dup", email: "operator@stopline.local", role: "user", password: "long-enough-pw" } }), 409],
      ["POST", "/api/tokens", as("admin", { body: { name: "x", role: "user" } }), 400],
      ["POST", "/api/accounts", as("admin", { body: { name: "No Mail", email: "not-an-address", role: "user", password: "long-enough-pw" } }), 400],
      ["PATCH", `/api/accounts/${operator.id}`, as("admin", { body: { role: "owner" } }), 400],
      ["POST", "/api/escalation-channels", as("operator", { body: { name: "bad", kind: "webhook", url: "not a url", secret: WEBHOOK_SECRET } }), 400],
      ["POST", "/api/tokens", as("operator", { body: { name: "not mine to make", role: "agent" } }), 403],
      ["POST", `/api/accounts/${operator.id}/disable`, as("support"), 403],
    ];
    const before = await lastSeq();
    for (const [method, path, options, status] of refusals) {
      const res = await call(method as "GET", path, options);
      expect(res.status, `${method} ${path}: ${await res.clone().text()}`).toBe(status);
    }
    expect(await eventsAfter(before)).toEqual([]);
  });
});

describe("GET /api/admin/history", () => {
  it("lists administrative events newest first — when, who, what, on which token/account/channel — paged and filtered", async () => {
    const res = await call("GET", "/api/admin/history", as("admin"));
    expect(res.status).toBe(200);
    const { events, nextBefore } = await json(res);
    expect(nextBefore).toBeNull();
    const all = await t.database.prisma.ledgerEvent.findMany({ where: { taskId: null }, orderBy: { seq: "desc" } });
    expect(events.map((e: { seq: number }) => e.seq)).toEqual(all.map((e) => e.seq));
    expect(events[0]).toMatchObject({ type: "token.revoked", entityType: "token", actor: ADMIN, subject: "to revoke twice", createdAt: expect.any(String) });
    expect(events.find((e: { type: string }) => e.type === "account.created")).toMatchObject({ subject: "rita@example.com", data: { role: "operator" } });
    expect(events.find((e: { type: string }) => e.type === "escalation_channel.removed")).toMatchObject({
      subject: "ops room",
      entityType: "escalationChannel",
    });
    for (const secret of secrets) expect(JSON.stringify(events)).not.toContain(secret);

    // Paged: limit, then before = nextBefore, until null; together exactly the whole list.
    const seen: number[] = [];
    let before: number | null = null;
    do {
      const page: { events: { seq: number }[]; nextBefore: number | null } = await json(
        await call("GET", `/api/admin/history?limit=4${before ? `&before=${before}` : ""}`, { token: adminToken }),
      );
      expect(page.events.length).toBeLessThanOrEqual(4);
      seen.push(...page.events.map((e) => e.seq));
      before = page.nextBefore;
    } while (before !== null);
    expect(seen).toEqual(all.map((e) => e.seq));

    // Filtered by what was changed.
    for (const entityType of ["token", "account", "escalationChannel"]) {
      const only = await json(await call("GET", `/api/admin/history?entityType=${entityType}`, as("admin")));
      expect(only.events.length).toBeGreaterThan(0);
      expect(only.events.every((e: { entityType: string }) => e.entityType === entityType)).toBe(true);
    }
  });

  it("bad input is a 400 naming the field", async () => {
    for (const [query, field] of [
      ["entityType=task", "entityType"],
      ["limit=0", "limit"],
      ["limit=1000", "limit"],
      ["before=soon", "before"],
    ]) {
      const res = await call("GET", `/api/admin/history?${query}`, as("admin"));
      expect(res.status, query).toBe(400);
      expect(
        (await json(res)).error.issues.map((i: { field: string }) => i.field),
        query,
      ).toEqual([field]);
    }
    const unknown = await call("GET", "/api/admin/history?actor=me", as("admin"));
    expect(unknown.status).toBe(400);
    expect((await json(unknown)).error.message).toContain('"actor"');
  });

  it("only admins: 403 for operator, support, user and machine tokens; 401 signed out", async () => {
    for (const who of ["operator", "support", "user"]) expect((await call("GET", "/api/admin/history", as(who))).status, who).toBe(403);
    for (const token of [agentToken, workerToken]) expect((await call("GET", "/api/admin/history", { token })).status).toBe(403);
    expect((await call("GET", "/api/admin/history")).status).toBe(401);
  });
});

describe("task-less events elsewhere", () => {
  it("a user never receives them (their streams carry only their own tasks' events); the audit and metrics read past them", async () => {
    const user = await t.database.prisma.user.findUniqueOrThrow({ where: { email: "user@stopline.local" } });
    const task = await createTask(t.database, { title: "mine", ownerId: user.id }, "user:user@stopline.local");
    expect((await call("GET", "/api/admin/history", as("user"))).status).toBe(403);

    // The user's whole stream from the beginning: their task only — no administrative event, no one else's task.
    const own = new AbortController();
    const ownStream = await call("GET", "/api/events?lastEventId=0", as("user", { signal: own.signal }));
    expect(ownStream.status).toBe(200);
    const seen: { taskId: string | null; type: string }[] = [];
    const ownTimer = setTimeout(() => own.abort(), 1_500);
    try {
      for await (const m of readEventStream(ownStream.body!)) if (m.event === "ledger") seen.push(JSON.parse(m.data));
    } catch {
      /* aborted: what arrived is what the user got */
    } finally {
      clearTimeout(ownTimer);
    }
    expect(seen.map((e) => e.type)).toEqual(["task.created"]);
    expect(seen.every((e) => e.taskId === task.id)).toBe(true);

    // The user's own task stream from the beginning: only this task's events, though admin events came before and after.
    await call("POST", "/api/tokens", as("admin", { body: { name: "after the task", role: "agent" } }));
    const abort = new AbortController();
    const res = await call("GET", `/api/tasks/${task.id}/events?lastEventId=0`, as("user", { signal: abort.signal }));
    expect(res.status).toBe(200);
    const got: { taskId: string | null; type: string }[] = [];
    const timer = setTimeout(() => abort.abort(), 1_500);
    try {
      for await (const m of readEventStream(res.body!)) if (m.event === "ledger") got.push(JSON.parse(m.data));
    } catch {
      /* aborted: what arrived is what the user got */
    } finally {
      clearTimeout(timer);
    }
    expect(got.map((e) => e.type)).toEqual(["task.created"]);
    expect(got.every((e) => e.taskId === task.id)).toBe(true);

    // Readers of the whole ledger (here an operator) get the administrative events, and no secret in them.
    const all = new AbortController();
    const stream = await call("GET", "/api/events?lastEventId=0", as("operator", { signal: all.signal }));
    expect(stream.status).toBe(200);
    const admin: string[] = [];
    let text = "";
    const timer2 = setTimeout(() => all.abort(), 1_500);
    try {
      for await (const m of readEventStream(stream.body!)) {
        if (m.event !== "ledger") continue;
        text += m.data;
        const e = JSON.parse(m.data);
        if (e.taskId === null) admin.push(e.type);
        if (e.type === "token.created" && e.data.name === "after the task") break;
      }
    } catch {
      /* aborted */
    } finally {
      clearTimeout(timer2);
      all.abort();
    }
    expect(admin).toEqual(
      expect.arrayContaining([
        "token.created",
        "token.revoked",
        "account.created",
        "account.role_changed",
        "account.disabled",
        "account.enabled",
        "escalation_channel.created",
        "escalation_channel.removed",
      ]),
    );
    for (const secret of secrets) expect(text).not.toContain(secret);

    // The audit and the metrics are about tasks: the task-less events neither break nor join them.
    const audit = await call("GET", "/api/audit", as("support"));
    expect(audit.status, await audit.clone().text()).toBe(200);
    expect(await audit.text()).not.toContain("token.created");
    const metrics = await call("GET", "/api/metrics/cancellations", as("support"));
    expect(metrics.status, await metrics.clone().text()).toBe(200);
  });
});
