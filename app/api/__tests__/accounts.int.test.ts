import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contract } from "@/lib/api/contract";
import { auth } from "@/lib/auth/better-auth";
import { CONSOLE_ROLES, OWNER_SCOPED, PERSON_ROLES, Roles } from "@/lib/auth/permissions";
import { seedDemoAccounts, demoAccounts } from "@/lib/auth/seed-demo-accounts";
import { createApiToken } from "@/lib/auth/tokens";
import { executeCancellation } from "@/lib/cancellation/execute-cancellation";
import { checkpointWorkItem } from "@/lib/ledger/checkpoint-work-item";
import { claimWorkItem } from "@/lib/ledger/claim-work-item";
import { completeWorkItem } from "@/lib/ledger/complete-work-item";
import { createTask } from "@/lib/ledger/create-task";
import { recordSubmission } from "@/lib/ledger/record-submission";
import { scheduleWorkItem } from "@/lib/ledger/schedule-work-item";
import { appRegistry } from "@/lib/runtime/app-registry";
import { call, json, type CallOptions } from "@/test/support/api-client";
import { createTestDatabase, type TestDatabase } from "@/lib/db/scratch-database";

const ORIGIN = "http://localhost:3000";
const records = new Map<string, number>();

let t: TestDatabase;
let adminToken = "";
const people: Record<string, { cookie: string; id: string }> = {};

/** Signs in through Better Auth's own handler, as the browser does; returns the session cookie. */
async function signIn(email: string, password: string) {
  const res = await auth(t.database).handler(
    new Request(`${ORIGIN}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: ORIGIN },
      body: JSON.stringify({ email, password }),
    }),
  );
  expect(res.status, await res.clone().text()).toBe(200);
  const body = await res.json();
  return { cookie: res.headers.get("set-cookie")!.split(";")[0], id: body.user.id as string };
}

/** A same-origin browser request with the person's session cookie. */
const as = (who: string, options: CallOptions = {}): CallOptions => ({
  ...options,
  headers: { cookie: people[who].cookie, origin: ORIGIN, host: "localhost:3000", "sec-fetch-site": "same-origin", ...options.headers },
});

beforeAll(async () => {
  t = await createTestDatabase();
  t.install();
  adminToken = (await createApiToken(t.database, { name: "admin-acc", role: "admin" })).token;
  const { created } = await seedDemoAccounts(t.database);
  expect(created).toHaveLength(5);
  for (const a of demoAccounts()) people[a.email.split("@")[0]] = await signIn(a.email, a.password);
  appRegistry().register({
    name: "crm_acc.create_record",
    kind: "external_action",
    risk: "high",
    commitsEffect: true,
    mechanism: "abort_signal",
    run: async () => null,
    async inspect(ref) {
      const v = records.get(ref.operationId ?? "");
      return v ? { status: "committed", externalRecordId: ref.operationId, externalVersion: String(v) } : { status: "not_committed" };
    },
    async compensate(effect) {
      records.set(effect.externalRecordId!, (records.get(effect.externalRecordId!) ?? 1) + 1);
      return { status: "compensated", detail: `archived ${effect.externalRecordId}` };
    },
    describeEffect: (e) => `CRM record ${e.externalRecordId}`,
  });
});
afterAll(async () => t?.drop());

describe("accounts: seeding and sessions", () => {
  it("seeding is idempotent and stores each role", async () => {
    expect((await seedDemoAccounts(t.database)).created).toEqual([]);
    const users = await t.database.prisma.user.findMany({ select: { email: true, role: true }, orderBy: { email: "asc" } });
    expect(users.map((u) => u.role).sort()).toEqual(["admin", "operator", "support", "user", "user"]);
    expect(await t.database.prisma.session.count()).toBeGreaterThanOrEqual(5); // sessions live in the database
  });

  it("a wrong password is refused; no cookie is a 401", async () => {
    const res = await auth(t.database).handler(
      new Request(`${ORIGIN}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: ORIGIN },
        body: JSON.stringify({ email: "user@stopline.local", password: "wrong-password" }),
      }),
    );
    expect(res.status).toBe(401);
    expect((await call("GET", "/api/tasks")).status).toBe(401);
  });

  it("the permission map: users are owner-scoped, support writes nothing, operators decide, console roles", () => {
    expect(OWNER_SCOPED).toEqual(["user"]);
    expect([...CONSOLE_ROLES].sort()).toEqual(["admin", "operator", "support"]);
    expect(PERSON_ROLES).toEqual(["user", "operator", "support", "admin"]);
    for (const route of Object.values(contract)) {
      if (route.auth === "public") continue;
      if (route.method !== "GET") expect(route.auth, route.path).not.toContain("support");
      expect(route.auth, route.path).toContain("admin");
    }
    expect(contract.decideReviewItem.auth).toEqual(Roles.reviewers);
    expect(contract.decideReviewItem.auth).not.toContain("user");
    expect(contract.allEvents.auth).toEqual(Roles.read); // a user's stream carries only their own tasks (lib/events/live.ts)
    expect(contract.listReviewItems.auth).not.toContain("user");
    expect(contract.audit.auth).not.toContain("user");
  });
});

describe("ownership: a user sees and stops only their own tasks and conversations", () => {
  it("another user's task is a 404 on every task route; the list is filtered", async () => {
    const mine = await createTask(t.database, { title: "mine", ownerId: people.user.id, conversationId: "conv-user-1" }, "user:user@stopline.local");
    const other = await createTask(t.database, { title: "someone else's", ownerId: "someone-else" }, "agent:x");

    expect((await call("GET", `/api/tasks/${mine.id}`, as("user"))).status).toBe(200);
    const list = await json(await call("GET", "/api/tasks", as("user")));
    expect(list.tasks.map((x: { id: string }) => x.id)).toEqual([mine.id]);

    for (const [who, id] of [
      ["user2", mine.id],
      ["user", other.id],
    ] as const) {
      expect((await call("GET", `/api/tasks/${id}`, as(who))).status).toBe(404);
      expect((await call("GET", `/api/tasks/${id}/events`, as(who))).status).toBe(404);
      expect((await call("GET", `/api/tasks/${id}/cancellation`, as(who))).status).toBe(404);
      expect((await call("POST", `/api/tasks/${id}/cancel`, as(who, { body: { reason: "not mine" } }))).status).toBe(404);
      expect((await call("POST", `/api/tasks/${id}/proposal`, as(who, { body: { items: [{ sku: "x", quantity: 1 }], expectedVersion: 1 } }))).status).toBe(404);
      expect((await call("POST", `/api/tasks/${id}/proposal/confirm`, as(who, { body: { proposalVersion: 1 } }))).status).toBe(404);
    }
    // The owner's edit at the version column's limit: a clear 400, not an overflow's 500 (API fuzz, PostgreSQL).
    expect(
      (await call("POST", `/api/tasks/${mine.id}/proposal`, as("user", { body: { items: [{ sku: "x", quantity: 1 }], expectedVersion: 2_147_483_647 } })))
        .status,
    ).toBe(400);
    expect((await json(await call("GET", "/api/tasks?conversationId=conv-user-1", as("user2")))).tasks).toEqual([]);
    expect((await call("POST", "/api/conversations/conv-user-1/messages", as("user2", { body: { text: "hello" } }))).status).toBe(404);
    // A user cannot read across owners at all.
    for (const path of ["/api/review-items", "/api/metrics/cancellations", "/api/audit"]) expect((await call("GET", path, as("user"))).status, path).toBe(403);

    // Their own Stop works, and is recorded as theirs.
    const stop = await call("POST", `/api/tasks/${mine.id}/cancel`, as("user", { body: { reason: "changed my mind" } }));
    expect(stop.status).toBe(202);
    const task = await t.database.prisma.task.findUniqueOrThrow({ where: { id: mine.id } });
    expect(task.cancelRequestedBy).toBe("user:user@stopline.local");
    expect((await call("GET", `/api/tasks/${mine.id}/cancellation`, as("user"))).status).toBe(200);
    expect((await call("GET", `/api/tasks/${mine.id}/cancellation`, as("user2"))).status).toBe(404);
    // Support and operators read it.
    expect((await call("GET", `/api/tasks/${mine.id}`, as("support"))).status).toBe(200);
    expect((await call("GET", `/api/tasks/${mine.id}`, as("operator"))).status).toBe(200);
  });
});

describe("support reads everything and changes nothing", () => {
  it("every write route answers 403 to support", async () => {
    const writes = Object.values(contract).filter((r) => r.method !== "GET" && r.auth !== "public");
    expect(writes.length).toBeGreaterThan(15);
    for (const route of writes) {
      const path = route.path
        .replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000")
        .replace("/services/00000000-0000-4000-8000-000000000000", "/services/shop");
      const res = await call(route.method, path, as("support", { body: {} }));
      expect(res.status, `${route.method} ${route.path}`).toBe(403);
    }
    for (const path of ["/api/tasks", "/api/review-items", "/api/metrics/cancellations", "/api/audit"])
      expect((await call("GET", path, as("support"))).status, path).toBe(200);
  });
});

describe("a conversation after an agent token posts into it (issue 11, item 10)", () => {
  it("the user's next message still works; the agent's task belongs to the user, who sees and stops it; another user still gets 404", async () => {
    const agentToken = (await createApiToken(t.database, { name: "helper-agent", role: "agent" })).token;
    const first = await call("POST", "/api/conversations/conv-shared-1/messages", as("user", { body: { text: "hello" } }));
    expect(first.status, await first.clone().text()).toBe(201);

    const byAgent = await call("POST", "/api/conversations/conv-shared-1/messages", { token: agentToken, body: { text: "export a report of 10 rows" } });
    expect(byAgent.status, await byAgent.clone().text()).toBe(201);
    const agentTask = (await json(byAgent)).taskId;
    expect((await t.database.prisma.task.findUniqueOrThrow({ where: { id: agentTask } })).ownerId).toBe(people.user.id);
    const viaTasks = await call("POST", "/api/tasks", { token: agentToken, body: { title: "follow-up", conversationId: "conv-shared-1" } });
    expect((await json(viaTasks)).ownerId).toBe(people.user.id);

    const next = await call("POST", "/api/conversations/conv-shared-1/messages", as("user", { body: { text: "hello again" } }));
    expect(next.status, await next.clone().text()).toBe(201);
    const listed = (await json(await call("GET", "/api/tasks?conversationId=conv-shared-1", as("user")))).tasks.map((x: { id: string }) => x.id);
    expect(listed).toContain(agentTask);
    expect((await call("POST", `/api/tasks/${agentTask}/cancel`, as("user", { body: { reason: "not what I asked" } }))).status).toBe(202);

    expect((await call("POST", "/api/conversations/conv-shared-1/messages", as("user2", { body: { text: "hello" } }))).status).toBe(404);
    expect((await call("GET", `/api/tasks/${agentTask}`, as("user2"))).status).toBe(404);
  });

  it("a conversation an earlier version already mixed (a token-owned task after the user's) is still the user's", async () => {
    await createTask(t.database, { title: "mine first", ownerId: people.user.id, conversationId: "conv-mixed-1" }, "user:user@stopline.local");
    await createTask(t.database, { title: "the agent's, owned by its token", ownerId: "helper-agent", conversationId: "conv-mixed-1" }, "agent:helper-agent");
    expect((await call("POST", "/api/conversations/conv-mixed-1/messages", as("user", { body: { text: "hello" } }))).status).toBe(201);
  });
});

describe("maker-checker and cross-site requests", () => {
  it("an operator cannot approve the compensation of a task whose Stop they requested; another person can", async () => {
    const task = await createTask(t.database, { title: "record", ownerId: people.user.id, riskLevel: "high" }, "agent:t");
    await scheduleWorkItem(
      t.database,
      { taskId: task.id, kind: "external_action", toolName: "crm_acc.create_record", mechanism: "abort_signal", intentVersion: 1, commitsEffect: true },
      "agent:t",
    );
    const item = (await claimWorkItem(t.database, { workerId: "w", toolNames: ["crm_acc.create_record"] }))!;
    const lease = { workItemId: item.id, leaseToken: item.leaseToken!, actor: "worker:w" };
    await checkpointWorkItem(t.database, lease);
    records.set("acc-1", 1);
    await recordSubmission(t.database, {
      ...lease,
      operationId: "acc-1",
      externalRecordId: "acc-1",
      externalVersion: "1",
      reversible: true,
      description: "CRM record acc-1",
    });
    await completeWorkItem(t.database, { ...lease, outcome: "completed", externalRecordId: "acc-1", externalVersion: "1" });

    expect((await call("POST", `/api/tasks/${task.id}/cancel`, as("operator", { body: { reason: "wrong customer" } }))).status).toBe(202);
    await executeCancellation(t.database, task.id, { registry: appRegistry(), verifyDelayMs: 10, settleTimeoutMs: 200 });
    const review = (await json(await call("GET", `/api/review-items?taskId=${task.id}`, as("operator")))).reviewItems[0];
    expect(review).toMatchObject({ kind: "approve_compensation", status: "open" });

    const decision = { decision: "approve", reason: "ok", target: "acc-1", expectedVersion: "1" };
    expect((await call("POST", `/api/review-items/${review.id}/decision`, as("user", { body: decision }))).status).toBe(403);
    const own = await call("POST", `/api/review-items/${review.id}/decision`, as("operator", { body: decision }));
    expect(own.status).toBe(403);
    expect((await json(own)).error.message).toMatch(/maker-checker/);
    expect(records.get("acc-1")).toBe(1);
    const other = await call("POST", `/api/review-items/${review.id}/decision`, as("admin", { body: decision }));
    expect(other.status, await other.clone().text()).toBe(200);
    expect(records.get("acc-1")).toBe(2);
  });

  /** A committed CRM record, then a Stop by `stopper`: a compensation waits for approval. */
  async function compensationAfterStopBy(recordId: string, stopper: CallOptions) {
    const task = await createTask(t.database, { title: `record ${recordId}`, ownerId: people.user.id, riskLevel: "high" }, "agent:t");
    await scheduleWorkItem(
      t.database,
      { taskId: task.id, kind: "external_action", toolName: "crm_acc.create_record", mechanism: "abort_signal", intentVersion: 1, commitsEffect: true },
      "agent:t",
    );
    const item = (await claimWorkItem(t.database, { workerId: "w", toolNames: ["crm_acc.create_record"] }))!;
    const lease = { workItemId: item.id, leaseToken: item.leaseToken!, actor: "worker:w" };
    await checkpointWorkItem(t.database, lease);
    records.set(recordId, 1);
    await recordSubmission(t.database, {
      ...lease,
      operationId: recordId,
      externalRecordId: recordId,
      externalVersion: "1",
      reversible: true,
      description: `CRM record ${recordId}`,
    });
    await completeWorkItem(t.database, { ...lease, outcome: "completed", externalRecordId: recordId, externalVersion: "1" });
    expect((await call("POST", `/api/tasks/${task.id}/cancel`, { ...stopper, body: { reason: "wrong customer" } })).status).toBe(202);
    await executeCancellation(t.database, task.id, { registry: appRegistry(), verifyDelayMs: 10, settleTimeoutMs: 200 });
    const review = (await json(await call("GET", `/api/review-items?taskId=${task.id}`, { token: adminToken }))).reviewItems[0];
    expect(review).toMatchObject({ kind: "approve_compensation", status: "open" });
    return { task, review, approve: { decision: "approve", reason: "ok", target: recordId, expectedVersion: "1" } };
  }

  it("maker-checker bypass by promotion: the operator who requested the Stop, promoted to admin, still cannot approve its compensation (the check is by person id, not role:email)", async () => {
    const operatorId = people.operator.id;
    const { task, review, approve } = await compensationAfterStopBy("acc-promoted", as("operator"));
    expect((await t.database.prisma.task.findUniqueOrThrow({ where: { id: task.id } })).cancelRequestedById).toBe(`person:${operatorId}`);
    const promote = await call("PATCH", `/api/accounts/${operatorId}`, { token: adminToken, body: { role: "admin" } });
    expect(promote.status, await promote.clone().text()).toBe(200);
    try {
      const me = await json(await call("GET", "/api/review-items", as("operator")));
      expect(me.reviewItems.length).toBeGreaterThan(0); // the session now acts as an admin
      const own = await call("POST", `/api/review-items/${review.id}/decision`, as("operator", { body: approve }));
      expect(own.status).toBe(403);
      expect((await json(own)).error.message).toMatch(/maker-checker/);
      expect(records.get("acc-promoted"), "nothing was compensated").toBe(1);
      expect((await t.database.prisma.reviewItem.findUniqueOrThrow({ where: { id: review.id } })).status).toBe("open");
      // Another person approves.
      expect((await call("POST", `/api/review-items/${review.id}/decision`, as("admin", { body: approve }))).status).toBe(200);
      expect(records.get("acc-promoted")).toBe(2);
    } finally {
      expect((await call("PATCH", `/api/accounts/${operatorId}`, { token: adminToken, body: { role: "operator" } })).status).toBe(200);
    }
  });

  it("maker-checker for tokens is by token id: the admin token that stopped the task cannot approve; another admin token with the same name can", async () => {
    const stopper = (await createApiToken(t.database, { name: "on-call bot", role: "admin" })).token;
    const twin = (await createApiToken(t.database, { name: "on-call bot", role: "admin" })).token;
    const { review, approve } = await compensationAfterStopBy("acc-token", { token: stopper });
    const own = await call("POST", `/api/review-items/${review.id}/decision`, { token: stopper, body: approve });
    expect(own.status).toBe(403);
    expect(records.get("acc-token")).toBe(1);
    const other = await call("POST", `/api/review-items/${review.id}/decision`, { token: twin, body: approve });
    expect(other.status, await other.clone().text()).toBe(200);
    expect(records.get("acc-token")).toBe(2);
  });

  it("a cross-site POST with a session cookie is refused (Stop, approve, sign-in)", async () => {
    const task = await createTask(t.database, { title: "csrf", ownerId: people.user.id }, "agent:t");
    const evil = { origin: "https://evil.example", "sec-fetch-site": "cross-site" };
    expect((await call("POST", `/api/tasks/${task.id}/cancel`, as("user", { body: { reason: "x" }, headers: evil }))).status).toBe(403);
    expect(
      (
        await call(
          "POST",
          `/api/tasks/${task.id}/cancel`,
          as("user", { body: { reason: "x" }, headers: { origin: "https://evil.example", "sec-fetch-site": "" } }),
        )
      ).status,
    ).toBe(403);
    expect(
      (
        await call(
          "POST",
          "/api/review-items/00000000-0000-4000-8000-000000000000/decision",
          as("operator", { body: { decision: "reject", reason: "x" }, headers: evil }),
        )
      ).status,
    ).toBe(403);
    // A form post (not JSON) is not an API call either.
    expect(
      (
        await call(
          "POST",
          `/api/tasks/${task.id}/cancel`,
          as("user", { rawBody: "reason=x", headers: { "content-type": "application/x-www-form-urlencoded" } }),
        )
      ).status,
    ).toBe(400);
    expect((await t.database.prisma.task.findUniqueOrThrow({ where: { id: task.id } })).cancelRequestedAt).toBeNull();
    // Bearer tokens are not cookies: no Origin needed.
    expect((await call("POST", `/api/tasks/${task.id}/cancel`, { token: adminToken, body: { reason: "x" } })).status).toBe(202);
  });
});
