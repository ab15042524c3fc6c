import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { auth } from "@/lib/auth/better-auth";
import { demoAccounts, seedDemoAccounts } from "@/lib/auth/seed-demo-accounts";
import { createApiToken } from "@/lib/auth/tokens";
import { escalateOverdue } from "@/lib/cancellation/engine";
import { openReviewItem } from "@/lib/cancellation/steps/7-review";
import { createTask } from "@/lib/ledger/create-task";
import { writeLedger } from "@/lib/ledger/write";
import { call, json, type CallOptions } from "@/test/support/api-client";
import { createTestDatabase, type TestDatabase } from "@/lib/db/scratch-database";
import { startEscalationDeliveries, type EscalationDeliverer } from "../../../lib/escalation/deliverer";
import { verifySignature } from "../../../lib/escalation/signature";
import { startWebhookReceiver, type WebhookReceiver } from "../../../lib/escalation/webhook-receiver";

/**
 * Escalation delivery end to end: review items escalate in the ledger (the engine's escalateOverdue, or a
 * high-risk orphan being opened), the deliverer started here reads the ledger and POSTs to real HTTP
 * receivers on 127.0.0.1, which check the signature with verifySignature; the delivery log is read through
 * the API. Backoff is shortened to 50 ms (1 s in production) so retries are observable quickly.
 */

const SECRET = "whsec_escalation_test_secret_1";
const BACKOFF_MS = 50;
let t: TestDatabase;
let admin = "";
let agent = "";
let deliverer: EscalationDeliverer;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  // The receivers of this file listen on 127.0.0.1: an internal address, which escalations may reach only
  // when an administrator allow-lists it (lib/escalation/destination.ts).
  process.env.STOPLINE_ESCALATION_ALLOWED_HOSTS = "127.0.0.1";
  t = await createTestDatabase();
  t.install();
  admin = (await createApiToken(t.database, { name: "ops", role: "admin" })).token;
  agent = (await createApiToken(t.database, { name: "agent-e", role: "agent" })).token;
  deliverer = startEscalationDeliveries(t.database, {
    pollMs: 50,
    backoffMs: BACKOFF_MS,
    maxAttempts: 5,
    timeoutMs: 3_000,
    publicUrl: "https://stopline.example",
  });
});
afterAll(async () => {
  await deliverer?.stop();
  await Promise.all(receivers.map((r) => r.close()));
  await t?.drop();
});
// Each test brings its own channels and items; switch the channels off and decide what is still open afterwards,
// so the next test's count is its own (a channel added later receives the escalated items still open, marked late).
afterEach(async () => {
  const { channels } = await json(await call("GET", "/api/escalation-channels", { token: admin }));
  for (const c of channels.filter((c: { active: boolean }) => c.active)) {
    expect((await call("DELETE", `/api/escalation-channels/${c.id}`, { token: admin })).status).toBe(200);
  }
  const { reviewItems } = await json(await call("GET", "/api/review-items", { token: admin }));
  for (const i of reviewItems.filter((i: { status: string }) => i.status === "open" || i.status === "escalated")) {
    const decision = i.kind === "approve_compensation" ? "reject" : "resolve";
    // An orphaned resource (no resource verified released here) is closed only with an explicit confirmation and evidence.
    const unverified = i.kind === "orphaned_resource" ? { confirmNotVerifiedReleased: true, evidence: "test fixture: no resource at any service" } : {};
    await call("POST", `/api/review-items/${i.id}/decision`, { token: admin, body: { decision, reason: "closed between tests", ...unverified } });
  }
});

async function receiver(options: { secret?: string; path?: string } = { secret: SECRET }) {
  const r = await startWebhookReceiver(options);
  receivers.push(r);
  return r;
}

async function addChannel(body: Record<string, unknown>) {
  const res = await call("POST", "/api/escalation-channels", { token: admin, body });
  expect(res.status).toBe(201);
  return json(res);
}

/** A review item as the engine opens it, and its escalation once the deadline passed. */
async function openItem(title: string, kind: "resolve_uncertain" | "orphaned_resource" = "resolve_uncertain", risk: "low" | "high" = "low") {
  const task = await createTask(t.database, { title, ownerId: "alice", riskLevel: risk }, "agent:t");
  const item = await openReviewItem(t.database, { taskId: task.id, kind, risk, subject: `${title}: the outcome of crm.create_record is not known` });
  if (!item) throw new Error("the review item was not opened");
  return { task, item };
}
async function escalatePastDeadline(item: { id: string; deadline: Date }) {
  const escalated = await escalateOverdue(t.database, new Date(item.deadline.getTime() + 1));
  expect(escalated).toContain(item.id);
}

const forItem = (r: WebhookReceiver, id: string) => r.requests.filter((q) => q.body?.reviewItem?.id === id);
const deliveriesOf = async (reviewItemId: string, extra = "") =>
  (await json(await call("GET", `/api/escalations?reviewItemId=${reviewItemId}${extra}`, { token: admin }))).deliveries;
const settle = (ms = 400) => new Promise((r) => setTimeout(r, ms));

/** People (Better Auth sessions) signed in as the browser does: the demo account of each role. */
const ORIGIN = "http://localhost:3000";
const people: Record<string, string> = {};
async function signInPeople() {
  if (Object.keys(people).length) return;
  await seedDemoAccounts(t.database);
  for (const a of demoAccounts()) {
    const res = await auth(t.database).handler(
      new Request(`${ORIGIN}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: ORIGIN },
        body: JSON.stringify({ email: a.email, password: a.password }),
      }),
    );
    expect(res.status, await res.clone().text()).toBe(200);
    people[a.email.split("@")[0]] = res.headers.get("set-cookie")!.split(";")[0];
  }
}
/** A same-origin browser request with the person's session cookie. */
const as = (who: string, options: CallOptions = {}): CallOptions => ({
  ...options,
  headers: { cookie: people[who], origin: ORIGIN, host: "localhost:3000", "sec-fetch-site": "same-origin", ...options.headers },
});

describe("escalation delivery", () => {
  it("an item past its deadline escalates → the webhook receives exactly one signed delivery", async () => {
    const hook = await receiver();
    const channel = await addChannel({ name: "on-call webhook", kind: "webhook", url: hook.url, secret: SECRET });
    expect(channel).toMatchObject({ name: "on-call webhook", kind: "webhook", active: true, hasSecret: true });
    expect(JSON.stringify(channel)).not.toContain(SECRET);

    const { task, item } = await openItem("order 1001");
    await escalatePastDeadline(item);
    await vi.waitFor(() => expect(forItem(hook, item.id)).toHaveLength(1), { timeout: 5_000, interval: 20 });

    const [req] = forItem(hook, item.id);
    expect(req.verified).toBe(true);
    expect(verifySignature(SECRET, req.headers["stopline-signature"] as string, req.raw, 300)).toBe(true);
    expect(req.headers["stopline-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.body).toEqual({
      event: "review_item.escalated",
      trigger: "deadline_passed",
      reviewItem: { id: item.id, kind: "resolve_uncertain", subject: item.subject, deadline: item.deadline.toISOString(), status: "escalated" },
      task: { id: task.id, title: "order 1001" },
      escalatedAt: expect.any(String),
      reason: expect.stringMatching(/deadline .* passed without a decision/),
      links: {
        reviewItem: `https://stopline.example/console/review?item=${item.id}`,
        task: `https://stopline.example/console/tasks/${task.id}`,
        api: `https://stopline.example/api/review-items?taskId=${task.id}`,
      },
    });
    // A receiver holding the wrong secret, or a tampered body, does not verify.
    expect(verifySignature("whsec_some_other_secret_0", req.headers["stopline-signature"] as string, req.raw, 300)).toBe(false);
    expect(verifySignature(SECRET, req.headers["stopline-signature"] as string, req.raw.replace("order 1001", "order 1002"), 300)).toBe(false);

    // The receiver may answer before the sender has recorded its answer.
    await vi.waitFor(async () => expect((await deliveriesOf(item.id))[0]?.status).toBe("delivered"), { timeout: 5_000, interval: 20 });
    const [logged] = await deliveriesOf(item.id);
    expect(req.deliveryId).toBe(logged.id);
    expect(logged).toMatchObject({
      channelId: channel.id,
      channel: { name: "on-call webhook" },
      taskId: task.id,
      kind: "escalated",
      status: "delivered",
      attempts: 1,
      responseStatus: 200,
      payload: req.body,
    });

    // Exactly one: more passes, a second escalation attempt and a repeated review_item.escalated event change nothing.
    expect(await escalateOverdue(t.database, new Date(item.deadline.getTime() + 60_000))).not.toContain(item.id);
    await writeLedger(t.database, (w) =>
      w.event({
        taskId: task.id,
        entityType: "reviewItem",
        entityId: item.id,
        actor: "admin:ops",
        type: "review_item.escalated",
        reason: "compensation conflict",
      }),
    );
    await deliverer.pass();
    await settle();
    expect(forItem(hook, item.id)).toHaveLength(1);
    expect(await deliveriesOf(item.id)).toHaveLength(1);
  });

  it("the receiver fails twice (500), then succeeds → 3 attempts with backoff logged, delivered", async () => {
    const hook = await receiver();
    await addChannel({ name: "flaky", kind: "webhook", url: hook.url, secret: SECRET });
    hook.failWith(500, 500);
    const { item } = await openItem("order 1003");
    await escalatePastDeadline(item);
    await vi.waitFor(async () => expect(await deliveriesOf(item.id, "&status=delivered")).toHaveLength(1), { timeout: 5_000, interval: 25 });

    const [logged] = await deliveriesOf(item.id);
    expect(logged).toMatchObject({ status: "delivered", attempts: 3, responseStatus: 200, lastError: expect.stringMatching(/^HTTP 500/) });
    expect(logged.attemptLog.map((a: { attempt: number; status: number }) => [a.attempt, a.status])).toEqual([
      [1, 500],
      [2, 500],
      [3, 200],
    ]);
    expect(logged.deliveredAt).not.toBeNull();

    const reqs = forItem(hook, item.id);
    expect(reqs).toHaveLength(3);
    expect(new Set(reqs.map((r) => r.deliveryId))).toEqual(new Set([logged.id])); // one delivery, three attempts
    expect(reqs.every((r) => r.verified)).toBe(true);
    expect(reqs.map((r) => r.headers["stopline-attempt"])).toEqual(["1", "2", "3"]);
    // Exponential backoff: ≥ 50 ms after the first failure, ≥ 100 ms after the second.
    expect(reqs[1].at - reqs[0].at).toBeGreaterThanOrEqual(BACKOFF_MS - 5);
    expect(reqs[2].at - reqs[1].at).toBeGreaterThanOrEqual(2 * BACKOFF_MS - 5);
  });

  it("a receiver that never succeeds → failed after the configured attempts, each one logged", async () => {
    const hook = await receiver();
    await addChannel({ name: "down", kind: "webhook", url: hook.url, secret: SECRET });
    hook.failWith(503, 502, 500, 500, 500, 500);
    const { item } = await openItem("order 1004");
    await escalatePastDeadline(item);
    await vi.waitFor(async () => expect(await deliveriesOf(item.id, "&status=failed")).toHaveLength(1), { timeout: 8_000, interval: 25 });
    const [logged] = await deliveriesOf(item.id);
    expect(logged).toMatchObject({ attempts: 5, responseStatus: 500, lastError: expect.stringMatching(/HTTP 500.*gave up after 5 attempts/) });
    expect(logged.attemptLog.map((a: { status: number }) => a.status)).toEqual([503, 502, 500, 500, 500]);
    await settle();
    expect(forItem(hook, item.id)).toHaveLength(5);
  });

  it("resolving an escalated item delivers a signed close-out after the escalation", async () => {
    const hook = await receiver();
    await addChannel({ name: "on-call webhook", kind: "webhook", url: hook.url, secret: SECRET });
    const { task, item } = await openItem("order 1005");
    await escalatePastDeadline(item);
    await vi.waitFor(() => expect(forItem(hook, item.id)).toHaveLength(1), { timeout: 5_000, interval: 20 });

    const decided = await call("POST", `/api/review-items/${item.id}/decision`, {
      token: admin,
      body: { decision: "resolve", reason: "the CRM shows no record: never created", evidence: "CRM search 10:42" },
    });
    expect(decided.status).toBe(200);
    await vi.waitFor(() => expect(forItem(hook, item.id)).toHaveLength(2), { timeout: 5_000, interval: 20 });

    const closeOut = forItem(hook, item.id)[1];
    expect(closeOut.verified).toBe(true);
    expect(closeOut.headers["stopline-event"]).toBe("review_item.closed_out");
    expect(closeOut.body).toMatchObject({
      event: "review_item.closed_out",
      reviewItem: { id: item.id, status: "resolved" },
      task: { id: task.id, title: "order 1005" },
      reason: "the CRM shows no record: never created",
      closedOut: { status: "resolved", decidedBy: "admin:ops", resolution: "the CRM shows no record: never created — evidence: CRM search 10:42" },
    });
    expect(Date.parse(closeOut.body.closedOut.at)).toBeGreaterThanOrEqual(Date.parse(closeOut.body.escalatedAt));

    await vi.waitFor(
      async () => {
        const log = await deliveriesOf(item.id);
        expect(log.map((d: { kind: string; status: string }) => [d.kind, d.status])).toEqual([
          ["closed_out", "delivered"],
          ["escalated", "delivered"],
        ]); // newest first
      },
      { timeout: 5_000, interval: 20 },
    );
    await settle();
    expect(forItem(hook, item.id)).toHaveLength(2);

    // The log says what each delivery is about and why, without opening its body: the close-out carries its escalation's why.
    const [closed, escalated] = await deliveriesOf(item.id);
    for (const d of [closed, escalated]) {
      expect(d).toMatchObject({
        reviewItem: {
          id: item.id,
          kind: "resolve_uncertain",
          subject: item.subject,
          status: "resolved",
          decidedBy: "admin:ops",
          resolution: expect.stringContaining("never created"),
        },
        task: { id: task.id, title: "order 1005" },
        trigger: "deadline_passed",
        reason: expect.stringMatching(/^deadline .* passed without a decision$/),
      });
    }
  });

  it("an item resolved while its escalation is still being retried: the close-out goes out after the escalation, never before", async () => {
    const hook = await receiver();
    await addChannel({ name: "flaky", kind: "webhook", url: hook.url, secret: SECRET });
    hook.failWith(500, 500);
    const { item } = await openItem("order 1008");
    await escalatePastDeadline(item);
    await vi.waitFor(() => expect(forItem(hook, item.id)).toHaveLength(1), { timeout: 5_000, interval: 10 });
    expect((await call("POST", `/api/review-items/${item.id}/decision`, { token: admin, body: { decision: "reject", reason: "not ours" } })).status).toBe(200);
    await vi.waitFor(async () => expect(await deliveriesOf(item.id, "&status=delivered")).toHaveLength(2), { timeout: 5_000, interval: 25 });
    expect(forItem(hook, item.id).map((r) => `${r.body.event}:${r.headers["stopline-attempt"]}`)).toEqual([
      "review_item.escalated:1",
      "review_item.escalated:2",
      "review_item.escalated:3",
      "review_item.closed_out:1",
    ]);
    expect(forItem(hook, item.id)[3].body.closedOut).toMatchObject({ status: "rejected", decidedBy: "admin:ops" });
  });

  it("an item that was never escalated closes without any delivery", async () => {
    const hook = await receiver();
    await addChannel({ name: "on-call webhook", kind: "webhook", url: hook.url, secret: SECRET });
    const { item } = await openItem("order 1006");
    expect(
      (await call("POST", `/api/review-items/${item.id}/decision`, { token: admin, body: { decision: "resolve", reason: "handled in time" } })).status,
    ).toBe(200);
    await deliverer.pass();
    await settle();
    expect(forItem(hook, item.id)).toHaveLength(0);
    expect(await deliveriesOf(item.id)).toEqual([]);
  });

  it("a high-risk orphan escalates at once — a Slack-format channel gets { text, blocks } JSON, the webhook its signed body", async () => {
    const slack = await receiver({ path: "/services/T0001/B0001/abcdefghijklmnopqrstuvwx" });
    const hook = await receiver();
    const slackChannel = await addChannel({ name: "#on-call", kind: "slack", url: slack.url });
    expect(slackChannel).toMatchObject({ kind: "slack", hasSecret: false });
    expect(slackChannel.urlPreview).not.toContain("abcdefghijklmnopqrstuvwx"); // an incoming-webhook URL is a credential
    await addChannel({ name: "on-call webhook", kind: "webhook", url: hook.url, secret: SECRET });

    const { task, item } = await openItem("export <reports> & more", "orphaned_resource", "high");
    expect(item.status).toBe("open"); // not waiting for its deadline
    await vi.waitFor(
      () => {
        expect(slack.requests.filter((r) => r.raw.includes(item.id))).toHaveLength(1);
        expect(forItem(hook, item.id)).toHaveLength(1);
      },
      { timeout: 5_000, interval: 20 },
    );

    const [message] = slack.requests.filter((r) => r.raw.includes(item.id));
    expect(message.headers["content-type"]).toBe("application/json");
    expect(message.body).toEqual({ text: expect.any(String), blocks: expect.any(Array) });
    expect(message.body.text).toMatch(/^:rotating_light: Escalated — Orphaned resource: export &lt;reports&gt; &amp; more/);
    expect(message.body.text).toContain(`<https://stopline.example/console/tasks/${task.id}|export &lt;reports&gt; &amp; more>`);
    expect(message.body.blocks.map((b: { type: string }) => b.type)).toEqual(["section", "section", "section", "actions", "context"]);
    expect(message.body.blocks[3].elements[0]).toMatchObject({ type: "button", url: `https://stopline.example/console/review?item=${item.id}` });

    expect(forItem(hook, item.id)[0].body).toMatchObject({
      event: "review_item.escalated",
      trigger: "high_risk_orphan",
      reviewItem: { id: item.id, kind: "orphaned_resource", status: "open" },
    });
    expect(forItem(hook, item.id)[0].verified).toBe(true);

    // A low-risk orphan waits for its deadline.
    const low = await openItem("export 2", "orphaned_resource", "low");
    await deliverer.pass();
    await settle();
    expect(forItem(hook, low.item.id)).toHaveLength(0);

    // Marking the orphan handled closes it out on both channels.
    expect(
      (
        await call("POST", `/api/review-items/${item.id}/decision`, {
          token: admin,
          body: { decision: "resolve", reason: "lock released by hand", evidence: "lock console shows no holder", confirmNotVerifiedReleased: true },
        })
      ).status,
    ).toBe(200);
    await vi.waitFor(
      () => {
        expect(slack.requests.filter((r) => r.raw.includes(item.id))).toHaveLength(2);
        expect(forItem(hook, item.id)).toHaveLength(2);
      },
      { timeout: 5_000, interval: 20 },
    );
    // A Slack message does not carry its trigger: the log reads it from the ledger.
    await vi.waitFor(async () => expect(await deliveriesOf(item.id, `&channelId=${slackChannel.id}&status=delivered`)).toHaveLength(2), {
      timeout: 5_000,
      interval: 20,
    });
    for (const d of await deliveriesOf(item.id, `&channelId=${slackChannel.id}`)) {
      expect(d).toMatchObject({
        channel: { kind: "slack" },
        task: { id: task.id },
        reviewItem: { kind: "orphaned_resource", status: "resolved" },
        trigger: "high_risk_orphan",
        reason: expect.stringMatching(/^high-risk orphaned resource/),
      });
    }
    expect(slack.requests.filter((r) => r.raw.includes(item.id))[1].body.text).toMatch(
      /^:white_check_mark: Closed out — Orphaned resource: .* was resolved by admin:ops: closed without a verified release: lock released by hand — evidence: lock console shows no holder/,
    );
  });

  it("DELETE /api/escalation-channels/{id} - deactivates: nothing more is sent to it; the list never shows a secret", async () => {
    const hook = await receiver();
    const channel = await addChannel({ name: "to retire", kind: "webhook", url: `${hook.url}?token=abc123`, secret: SECRET });
    expect(channel.urlPreview).toBe(`${hook.url}?…`);
    const res = await call("DELETE", `/api/escalation-channels/${channel.id}`, { token: admin });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ id: channel.id, active: false });
    expect((await call("DELETE", `/api/escalation-channels/${channel.id}`, { token: admin })).status).toBe(200); // repeatable

    const { item } = await openItem("order 1007");
    await escalatePastDeadline(item);
    await deliverer.pass();
    await settle();
    expect(forItem(hook, item.id)).toHaveLength(0);

    const listed = await call("GET", "/api/escalation-channels", { token: admin });
    const text = await listed.text();
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("abc123");
    expect(JSON.parse(text).channels.find((c: { id: string }) => c.id === channel.id)).toMatchObject({ active: false, hasSecret: true });
    expect((await call("DELETE", "/api/escalation-channels/no-such-channel", { token: admin })).status).toBe(404);
  });
});

describe("escalation API input and access", () => {
  const countChannels = () => t.database.prisma.escalationChannel.count();
  const good = () => ({ name: "ops", kind: "webhook", url: "https://hooks.example.com/stopline", secret: SECRET });

  it.each([
    ["a webhook without a secret", { secret: undefined }, "secret"],
    ["a secret shorter than 16 characters", { secret: "short" }, "secret"],
    ["an unknown kind", { kind: "email" }, "kind"],
    ["a URL that is not http(s)", { url: "ftp://hooks.example.com/x" }, "url"],
    ["a URL that is not a URL", { url: "hooks dot example" }, "url"],
    ["an empty name", { name: "  " }, "name"],
    ["a missing URL", { url: undefined }, "url"],
  ])("POST /api/escalation-channels - %s → 400 naming the field, nothing written", async (_what, change, field) => {
    const before = await countChannels();
    const res = await call("POST", "/api/escalation-channels", { token: admin, body: { ...good(), ...change } });
    expect(res.status).toBe(400);
    const { error } = await json(res);
    expect(error.code).toBe("bad_request");
    expect(error.issues.map((i: { field: string }) => i.field)).toContain(field);
    expect(error.message).toContain(field);
    expect(await countChannels()).toBe(before);
  });

  it("POST /api/escalation-channels - an unknown field, or a body that is not JSON → 400, nothing written", async () => {
    const before = await countChannels();
    const extra = await call("POST", "/api/escalation-channels", { token: admin, body: { ...good(), active: false } });
    expect(extra.status).toBe(400);
    expect((await json(extra)).error.message).toMatch(/active/);
    const form = await call("POST", "/api/escalation-channels", {
      token: admin,
      rawBody: "name=ops",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(400);
    expect(await countChannels()).toBe(before);
  });

  it("GET /api/escalations - an unknown status or kind → 400 naming the field", async () => {
    for (const [query, field] of [
      ["status=lost", "status"],
      ["kind=paged", "kind"],
      ["limit=0", "limit"],
    ]) {
      const res = await call("GET", `/api/escalations?${query}`, { token: admin });
      expect(res.status).toBe(400);
      expect((await json(res)).error.issues.map((i: { field: string }) => i.field)).toContain(field);
    }
  });

  it("an operator (person) creates and removes channels, and reads the delivery log", async () => {
    await signInPeople();
    const created = await call("POST", "/api/escalation-channels", as("operator", { body: { ...good(), name: "operator's hook" } }));
    expect(created.status, await created.clone().text()).toBe(201);
    const channel = await json(created);
    expect(channel).toMatchObject({ name: "operator's hook", kind: "webhook", active: true, hasSecret: true });
    const listed = await json(await call("GET", "/api/escalation-channels", as("operator")));
    expect(listed.channels.map((c: { id: string }) => c.id)).toContain(channel.id);
    expect((await call("GET", "/api/escalations", as("operator"))).status).toBe(200);
    const removed = await call("DELETE", `/api/escalation-channels/${channel.id}`, as("operator"));
    expect(removed.status).toBe(200);
    expect(await json(removed)).toMatchObject({ id: channel.id, active: false });
    // A bad URL from a person is refused like any other: 400 naming the field, nothing written.
    const before = await countChannels();
    const bad = await call("POST", "/api/escalation-channels", as("operator", { body: { ...good(), url: "not a url" } }));
    expect(bad.status).toBe(400);
    expect((await json(bad)).error.issues.map((i: { field: string }) => i.field)).toEqual(["url"]);
    expect(await countChannels()).toBe(before);
  });

  it("support reads the delivery log and the channels with their health, but may neither create nor remove channels (403, nothing written)", async () => {
    await signInPeople();
    const existing = await addChannel({ name: "kept", kind: "webhook", url: "https://hooks.example.com/kept", secret: SECRET });
    const before = await countChannels();
    const log = await call("GET", "/api/escalations", as("support"));
    expect(log.status).toBe(200);
    expect(await json(log)).toHaveProperty("deliveries");
    expect((await call("POST", "/api/escalation-channels", as("support", { body: good() }))).status).toBe(403);
    expect((await call("DELETE", `/api/escalation-channels/${existing.id}`, as("support"))).status).toBe(403);
    const listed = await call("GET", "/api/escalation-channels", as("support"));
    expect(listed.status).toBe(200);
    const text = await listed.text();
    expect(text).not.toContain(SECRET);
    const kept = (JSON.parse(text).channels as { id: string; health: { health: string } }[]).find((c) => c.id === existing.id);
    expect(kept?.health.health).toBe("untested");
    expect(await countChannels()).toBe(before);
    expect(await t.database.prisma.escalationChannel.findUnique({ where: { id: existing.id } })).toMatchObject({ active: true });
  });

  it("a user (person) gets 403 on the delivery log and on every channel route", async () => {
    await signInPeople();
    const existing = await addChannel({ name: "kept", kind: "webhook", url: "https://hooks.example.com/kept", secret: SECRET });
    const before = await countChannels();
    expect((await call("GET", "/api/escalations", as("user"))).status).toBe(403);
    expect((await call("GET", "/api/escalation-channels", as("user"))).status).toBe(403);
    expect((await call("POST", "/api/escalation-channels", as("user", { body: good() }))).status).toBe(403);
    expect((await call("DELETE", `/api/escalation-channels/${existing.id}`, as("user"))).status).toBe(403);
    expect(await countChannels()).toBe(before);
    expect(await t.database.prisma.escalationChannel.findUnique({ where: { id: existing.id } })).toMatchObject({ active: true });
  });

  it("a cross-site channel write with an operator's session cookie is refused", async () => {
    await signInPeople();
    const before = await countChannels();
    const res = await call(
      "POST",
      "/api/escalation-channels",
      as("operator", { body: good(), headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" } }),
    );
    expect(res.status).toBe(403);
    expect(await countChannels()).toBe(before);
  });

  it("machines (agent tokens) neither manage channels nor read the delivery log", async () => {
    const before = await countChannels();
    expect((await call("POST", "/api/escalation-channels", { token: agent, body: good() })).status).toBe(403);
    expect((await call("GET", "/api/escalation-channels", { token: agent })).status).toBe(403);
    expect((await call("GET", "/api/escalations", { token: agent })).status).toBe(403);
    expect((await call("GET", "/api/escalations")).status).toBe(401);
    expect(await countChannels()).toBe(before);
  });

  it("GET /api/openapi.json - documents the escalation routes", async () => {
    const doc = await json(await call("GET", "/api/openapi.json"));
    expect(doc.paths["/api/escalation-channels"]).toHaveProperty("post");
    expect(doc.paths["/api/escalation-channels/{id}"]).toHaveProperty("delete");
    expect(doc.paths["/api/escalations"].get.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(["reviewItemId", "status"]));
    expect(JSON.stringify(doc.paths["/api/escalation-channels"].get.responses["200"])).not.toMatch(/"secret"/);
  });
});

describe("escalations you can trust", () => {
  it("an item escalated while no channel existed is sent, marked late, to a channel added later; a decided one is not", async () => {
    const open = await openItem("order 2001 — escalated before any channel");
    await escalatePastDeadline(open.item);
    const decided = await openItem("order 2002 — escalated, then decided");
    await escalatePastDeadline(decided.item);
    expect(
      (await call("POST", `/api/review-items/${decided.item.id}/decision`, { token: admin, body: { decision: "resolve", reason: "checked by phone" } })).status,
    ).toBe(200);
    expect(await deliveriesOf(open.item.id)).toEqual([]); // nobody was alerted: there was no channel

    const hook = await receiver();
    const channel = await addChannel({ name: "added later", kind: "webhook", url: hook.url, secret: SECRET });
    await vi.waitFor(() => expect(forItem(hook, open.item.id)).toHaveLength(1), { timeout: 5_000 });
    const body = forItem(hook, open.item.id)[0].body;
    expect(body).toMatchObject({ event: "review_item.escalated", trigger: "deadline_passed", late: { channelAddedAt: channel.createdAt } });
    expect(forItem(hook, open.item.id)[0].verified).toBe(true);
    expect(forItem(hook, decided.item.id)).toHaveLength(0);
    const [logged] = await deliveriesOf(open.item.id);
    expect(logged).toMatchObject({ channelId: channel.id, kind: "escalated", late: true, status: "delivered" });

    // Adding the channel twice over (a second catch-up) sends nothing twice.
    const { catchUpChannel } = await import("../../../lib/escalation/catch-up-channel");
    expect(await catchUpChannel(t.database, { id: channel.id, kind: "webhook", createdAt: new Date(channel.createdAt) })).toBe(0);
  });

  it("send test: the receiver gets a signed test message through the deliverer; the channel is then healthy; support may not send one", async () => {
    await signInPeople();
    const hook = await receiver();
    const channel = await addChannel({ name: "tested webhook", kind: "webhook", url: hook.url, secret: SECRET });
    const sent = await call("POST", `/api/escalation-channels/${channel.id}/test`, { token: admin });
    expect(sent.status, await sent.clone().text()).toBe(202);
    await vi.waitFor(() => expect(hook.requests.filter((r) => r.body?.event === "stopline.test")).toHaveLength(1), { timeout: 5_000 });
    const [test] = hook.requests.filter((r) => r.body?.event === "stopline.test");
    expect(test.verified).toBe(true);
    expect(test.headers["stopline-event"]).toBe("stopline.test");
    await vi.waitFor(
      async () => {
        const { channels } = await json(await call("GET", "/api/escalation-channels", { token: admin }));
        expect(channels.find((c: { id: string }) => c.id === channel.id).health).toMatchObject({ health: "healthy", attempts: 1 });
      },
      { timeout: 5_000 },
    );
    expect((await call("POST", `/api/escalation-channels/${channel.id}/test`, as("support"))).status).toBe(403);
    expect((await call("POST", `/api/escalation-channels/00000000-0000-4000-8000-000000000000/test`, { token: admin })).status).toBe(404);
  });

  it("a channel whose every attempt failed is listed as failing (failures in a row, never delivered), not Active", async () => {
    const hook = await receiver();
    hook.failWith(500, 500, 500, 500, 500);
    const channel = await addChannel({ name: "broken webhook", kind: "webhook", url: hook.url, secret: SECRET });
    const { item } = await openItem("order 2003 — to a failing channel");
    await escalatePastDeadline(item);
    await vi.waitFor(async () => expect((await deliveriesOf(item.id))[0]?.status).toBe("failed"), { timeout: 10_000 });
    const { channels } = await json(await call("GET", "/api/escalation-channels", { token: admin }));
    const listed = channels.find((c: { id: string }) => c.id === channel.id);
    expect(listed.health).toMatchObject({ health: "failing", consecutiveFailures: 5, attempts: 5, lastSuccessAt: null });
  });
});
