import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { auth } from "@/lib/auth/better-auth";
import { demoAccounts, seedDemoAccounts } from "@/lib/auth/seed-demo-accounts";
import { createApiToken } from "@/lib/auth/tokens";
import { escalateOverdue } from "@/lib/cancellation/engine";
import { openReviewItem } from "@/lib/cancellation/steps/7-review";
import { startDemoServer, type DemoServer } from "@/lib/demo/server";
import { witnessLog } from "@/lib/demo/store";
import { createTask } from "@/lib/ledger/create-task";
import { call, json, type CallOptions } from "@/test/support/api-client";
import { createTestDatabase, type TestDatabase } from "@/lib/db/scratch-database";
import { startEscalationDeliveries, type EscalationDeliverer } from "../../../lib/escalation/deliverer";
import { guardedPost, type Resolver } from "../../../lib/escalation/destination";
import { startWebhookReceiver, type WebhookReceiver } from "../../../lib/escalation/webhook-receiver";
import { DeliveryStatus } from "../../../lib/escalation/states";

/**
 * Issue 11, item 1 — server-side request forgery through escalation webhooks. The internal service here is the
 * demo shop on 127.0.0.1 (it cancels an order on POST /shop/orders/{id}/cancel, no questions asked): before,
 * an operator could make it the URL of a channel and the next escalation cancelled an order nobody approved.
 * Now every internal destination is refused when the channel is added (400) and at every delivery — also a
 * name that resolves to an internal address only later (DNS rebinding) — unless an administrator allow-listed
 * the host (STOPLINE_ESCALATION_ALLOWED_HOSTS). And what a receiver answered is shown only to the roles that
 * configure channels.
 */
const SECRET = "whsec_ssrf_test_secret_0001";
let t: TestDatabase;
let admin = "";
let shop: DemoServer;
let receiver: WebhookReceiver;
let deliverer: EscalationDeliverer;
/** Names resolve as this table says: "rebind.test" is where a rebinding attacker points its name at delivery time. */
const dnsAtDelivery: Record<string, string> = {};
const resolver: Resolver = async (host) => {
  const address = dnsAtDelivery[host];
  if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  return [{ address, family: 4 }];
};

const ORIGIN = "http://localhost:3000";
const people: Record<string, string> = {};
const as = (who: string, options: CallOptions = {}): CallOptions => ({
  ...options,
  headers: { cookie: people[who], origin: ORIGIN, host: "localhost:3000", "sec-fetch-site": "same-origin", ...options.headers },
});

beforeAll(async () => {
  delete process.env.STOPLINE_ESCALATION_ALLOWED_HOSTS; // nothing allow-listed, except where a test says so
  t = await createTestDatabase();
  t.install();
  admin = (await createApiToken(t.database, { name: "ops", role: "admin" })).token;
  shop = await startDemoServer({ file: ":memory:" });
  receiver = await startWebhookReceiver({ secret: SECRET });
  await seedDemoAccounts(t.database);
  for (const a of demoAccounts()) {
    const res = await auth(t.database).handler(
      new Request(`${ORIGIN}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: ORIGIN },
        body: JSON.stringify({ email: a.email, password: a.password }),
      }),
    );
    people[a.email.split("@")[0]] = res.headers.get("set-cookie")!.split(";")[0];
  }
  deliverer = startEscalationDeliveries(t.database, {
    pollMs: 50,
    backoffMs: 50,
    maxAttempts: 3,
    timeoutMs: 2_000,
    post: (url, init) => guardedPost(url, init, undefined, resolver),
  });
});
afterAll(async () => {
  delete process.env.STOPLINE_ESCALATION_ALLOWED_HOSTS;
  await deliverer?.stop();
  await receiver?.close();
  await shop?.close();
  await t?.drop();
});

async function placeOrder() {
  const res = await fetch(`${shop.url}/shop/orders`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ idempotencyKey: crypto.randomUUID(), items: [{ sku: "chair", quantity: 1 }] }),
  });
  expect(res.status).toBe(201);
  const { orderId } = (await res.json()) as { orderId: string };
  return { id: orderId };
}
async function escalatedItem(title: string) {
  const task = await createTask(t.database, { title, ownerId: "alice" }, "agent:t");
  const item = (await openReviewItem(t.database, { taskId: task.id, kind: "resolve_uncertain", risk: "low", subject: `${title}: outcome unknown` }))!;
  expect(await escalateOverdue(t.database, new Date(item.deadline.getTime() + 1))).toContain(item.id);
  return item;
}
const deliveriesOf = async (reviewItemId: string, who: CallOptions = { token: admin }) =>
  (await json(await call("GET", `/api/escalations?reviewItemId=${reviewItemId}`, who))).deliveries;
const channels = () => t.database.prisma.escalationChannel.count();

describe("SSRF through escalation webhooks", () => {
  it.each([
    ["loopback", (port: string) => `http://127.0.0.1:${port}/shop/orders/ORDER/cancel`],
    ["localhost", (port: string) => `http://localhost:${port}/shop/orders/ORDER/cancel`],
    ["[::1]", (port: string) => `http://[::1]:${port}/shop/orders/ORDER/cancel`],
    ["0.0.0.0", (port: string) => `http://0.0.0.0:${port}/shop/orders/ORDER/cancel`],
    ["2130706433", (port: string) => `http://2130706433:${port}/shop/orders/ORDER/cancel`],
    ["127.1", (port: string) => `http://127.1:${port}/shop/orders/ORDER/cancel`],
    ["the metadata service", () => "http://169.254.169.254/latest/meta-data/iam/security-credentials/"],
    ["a private address", () => "http://10.0.0.7:8080/admin"],
  ])(
    "an operator cannot register an internal address (%s) as a channel: 400 naming the field, nothing written, the internal service hears nothing",
    async (_name, urlFor) => {
      const order = await placeOrder();
      const url = urlFor(new URL(shop.url).port).replace("ORDER", order.id);
      const before = await channels();
      const res = await call("POST", "/api/escalation-channels", as("operator", { body: { name: "internal", kind: "webhook", url, secret: SECRET } }));
      expect(res.status).toBe(400);
      const body = await json(res);
      expect(body.error.details.field).toBe("url");
      expect(body.error.message).toMatch(/destination is not allowed .*(loopback|unspecified|link-local|private)/);
      expect(await channels()).toBe(before);
      expect(
        witnessLog(shop.db, "shop")
          .filter((w) => w.subject === order.id)
          .map((w) => w.action),
      ).toEqual(["order_created"]);
    },
  );

  it("a channel that points inside (stored before this rule, or allow-listed once and no longer) is refused at delivery: the order is not cancelled, the delivery fails at once and says why", async () => {
    const order = await placeOrder();
    const channel = await t.database.prisma.escalationChannel.create({
      data: { name: "legacy internal", kind: "webhook", url: `${shop.url}/shop/orders/${order.id}/cancel`, secret: SECRET, active: true },
    });
    const item = await escalatedItem("legacy channel");
    await vi.waitFor(async () => expect((await deliveriesOf(item.id))[0]?.status).toBe("failed"), { timeout: 5_000, interval: 25 });
    const [d] = await deliveriesOf(item.id);
    expect(d).toMatchObject({ channelId: channel.id, attempts: 1, responseStatus: null });
    expect(d.lastError).toMatch(/destination refused: .*loopback.*\(not retried\)/);
    expect(
      witnessLog(shop.db, "shop")
        .filter((w) => w.subject === order.id)
        .map((w) => w.action),
    ).toEqual(["order_created"]);
    await t.database.prisma.escalationChannel.update({ where: { id: channel.id }, data: { active: false } });
  });

  it("DNS rebinding: a name that resolved to a public address when the channel was added, and to 127.0.0.1 at delivery, is refused on the address actually connected to", async () => {
    dnsAtDelivery["rebind.test"] = "127.0.0.1";
    const order = await placeOrder();
    const port = new URL(shop.url).port;
    const channel = await t.database.prisma.escalationChannel.create({
      data: { name: "rebinding", kind: "webhook", url: `http://rebind.test:${port}/shop/orders/${order.id}/cancel`, secret: SECRET, active: true },
    });
    const item = await escalatedItem("rebinding");
    await vi.waitFor(async () => expect((await deliveriesOf(item.id))[0]?.status).toBe("failed"), { timeout: 5_000, interval: 25 });
    expect((await deliveriesOf(item.id))[0].lastError).toMatch(/rebind\.test resolves to 127\.0\.0\.1: .*loopback/);
    expect(
      witnessLog(shop.db, "shop")
        .filter((w) => w.subject === order.id)
        .map((w) => w.action),
    ).toEqual(["order_created"]);
    await t.database.prisma.escalationChannel.update({ where: { id: channel.id }, data: { active: false } });
  });

  it("a redirect to an internal address is not followed", async () => {
    // A public-looking receiver (allow-listed for this test) that answers 307 to the shop's cancel URL.
    process.env.STOPLINE_ESCALATION_ALLOWED_HOSTS = `127.0.0.1:${new URL(receiver.url).port}`;
    const order = await placeOrder();
    const { createServer } = await import("node:http");
    const redirector = createServer((_req, res) => res.writeHead(307, { location: `${shop.url}/shop/orders/${order.id}/cancel` }).end());
    await new Promise<void>((r) => redirector.listen(0, "127.0.0.1", r));
    const port = (redirector.address() as { port: number }).port;
    process.env.STOPLINE_ESCALATION_ALLOWED_HOSTS += `,127.0.0.1:${port}`;
    try {
      const res = await call("POST", "/api/escalation-channels", {
        token: admin,
        body: { name: "redirects", kind: "webhook", url: `http://127.0.0.1:${port}/hook`, secret: SECRET },
      });
      expect(res.status).toBe(201);
      const item = await escalatedItem("redirect");
      // (attempts counts a claimed attempt; its log entry is written when it has an answer)
      await vi.waitFor(async () => expect((await deliveriesOf(item.id))[0]?.attemptLog.length).toBeGreaterThanOrEqual(1), { timeout: 5_000, interval: 25 });
      expect((await deliveriesOf(item.id))[0].attemptLog[0].error).toMatch(/HTTP 307: redirect .* not followed/);
      expect(
        witnessLog(shop.db, "shop")
          .filter((w) => w.subject === order.id)
          .map((w) => w.action),
      ).toEqual(["order_created"]);
      await call("DELETE", `/api/escalation-channels/${(await json(res)).id}`, { token: admin });
    } finally {
      redirector.close();
      delete process.env.STOPLINE_ESCALATION_ALLOWED_HOSTS;
    }
  });

  it("an administrator's allow-list admits an internal receiver (STOPLINE_ESCALATION_ALLOWED_HOSTS) — and only the host:port it names", async () => {
    const port = new URL(receiver.url).port;
    process.env.STOPLINE_ESCALATION_ALLOWED_HOSTS = `127.0.0.1:${port}`;
    try {
      const other = await call("POST", "/api/escalation-channels", {
        token: admin,
        body: { name: "shop", kind: "webhook", url: `${shop.url}/shop/orders`, secret: SECRET },
      });
      expect(other.status).toBe(400); // same host, another port
      const res = await call("POST", "/api/escalation-channels", {
        token: admin,
        body: { name: "internal receiver", kind: "webhook", url: receiver.url, secret: SECRET },
      });
      expect(res.status, await res.clone().text()).toBe(201);
      // A new channel first receives what is still escalated from earlier tests, marked late: let those arrive
      // before the receiver fails once, so that the failure is this item's first attempt.
      const channelId = (await json(res.clone())).id as string;
      await vi.waitFor(
        async () => expect(await t.database.prisma.escalationDelivery.count({ where: { channelId, status: { not: DeliveryStatus.delivered } } })).toBe(0),
        { timeout: 10_000, interval: 25 },
      );
      receiver.failWith(500); // its answer carries internal detail; then it accepts
      const item = await escalatedItem("allowed");
      await vi.waitFor(async () => expect((await deliveriesOf(item.id))[0]?.status).toBe("delivered"), { timeout: 5_000, interval: 25 });
      expect(receiver.requests.filter((r) => r.body?.reviewItem?.id === item.id).length).toBe(2);

      // The receiver's error body: operators and admins (who configure channels) read it; support does not.
      const forOperator = (await deliveriesOf(item.id, as("operator")))[0];
      expect(forOperator.attemptLog[0].error).toBe("HTTP 500: receiver is failing on purpose");
      const forSupport = (await deliveriesOf(item.id, as("support")))[0];
      expect(forSupport.attemptLog[0]).toMatchObject({ status: 500, error: expect.stringMatching(/^HTTP 500 — details are shown to operators and admins$/) });
      expect(JSON.stringify(forSupport)).not.toContain("failing on purpose");
      await call("DELETE", `/api/escalation-channels/${(await json(res)).id}`, { token: admin });
    } finally {
      delete process.env.STOPLINE_ESCALATION_ALLOWED_HOSTS;
    }
  });

  it("lastError of a failed delivery (a connection error naming an internal host) is hidden from support, shown to the operator", async () => {
    const task = await createTask(t.database, { title: "hidden error", ownerId: "alice" }, "agent:t");
    const item = (await openReviewItem(t.database, { taskId: task.id, kind: "resolve_uncertain", risk: "low", subject: "hidden error" }))!;
    const channel = await t.database.prisma.escalationChannel.create({
      data: { name: "down", kind: "webhook", url: "https://hooks.example.com/x", secret: SECRET, active: false },
    });
    await t.database.prisma.escalationDelivery.create({
      data: {
        channelId: channel.id,
        reviewItemId: item.id,
        taskId: task.id,
        kind: "escalated",
        status: "failed",
        attempts: 1,
        responseStatus: null,
        lastError: "connect ECONNREFUSED db-7.internal:5432 (gave up after 1 attempts)",
        attemptLog: [{ attempt: 1, at: new Date().toISOString(), status: null, error: "connect ECONNREFUSED db-7.internal:5432", durationMs: 3 }] as never,
        payload: {} as never,
      },
    });
    const operator = (await deliveriesOf(item.id, as("operator")))[0];
    expect(operator.lastError).toMatch(/db-7\.internal/);
    const support = (await deliveriesOf(item.id, as("support")))[0];
    expect(support.lastError).toBe("the delivery failed (no HTTP answer) — details are shown to operators and admins");
    expect(support.attemptLog[0].error).toBe(support.lastError);
    expect(JSON.stringify(support)).not.toContain("db-7.internal");
  });
});
