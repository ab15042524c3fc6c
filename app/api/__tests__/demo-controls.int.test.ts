import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { DEMO_SERVICES, DemoFaultsSchema } from "@/lib/api/schemas";
import { createApiToken } from "@/lib/auth/tokens";
import { FaultsSchema } from "@/lib/demo/faults";
import { startDemoServer, type DemoServer } from "@/lib/demo/server";
import { SERVICES } from "@/lib/demo/store";
import { call, json } from "@/test/support/api-client";
import { createTestDatabase, type TestDatabase } from "@/lib/db/scratch-database";

/**
 * The demo world's fault controls through Stopline's API (the console's half of issue 4): the routes call
 * a real demo server over HTTP — started here, and found through STOPLINE_DEMO_URL as the app finds it.
 */

let t: TestDatabase;
let demo: DemoServer;
const tokens = { admin: "", agent: "", worker: "" };
const previousUrl = process.env.STOPLINE_DEMO_URL;

beforeAll(async () => {
  t = await createTestDatabase();
  t.install();
  for (const role of ["admin", "agent", "worker"] as const) tokens[role] = (await createApiToken(t.database, { name: `${role}-demo`, role })).token;
  demo = await startDemoServer({ file: ":memory:" });
  process.env.STOPLINE_DEMO_URL = demo.url; // read by demoServicesUrl() on every call
});
afterAll(async () => {
  if (previousUrl === undefined) delete process.env.STOPLINE_DEMO_URL;
  else process.env.STOPLINE_DEMO_URL = previousUrl;
  await demo?.close();
  await t?.drop();
});
beforeEach(async () => {
  // every test starts from a world without faults (set on the demo server itself, not through the API under test)
  for (const service of SERVICES) await fetch(`${demo.url}/${service}/faults`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
});

/** What the demo server itself says (the authority), bypassing Stopline. */
const faultsOnServer = async (service: string) => (await fetch(`${demo.url}/${service}/faults`)).json();
const allFaultsOnServer = async () => Object.fromEntries(await Promise.all(SERVICES.map(async (s) => [s, await faultsOnServer(s)])));
async function placeOrder(key: string) {
  const res = await fetch(`${demo.url}/shop/orders`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ idempotencyKey: key, items: [{ sku: "chair", quantity: 2 }] }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { orderId: string };
}

describe("the API's schemas mirror the demo world's", () => {
  it("DemoFaultsSchema is FaultsSchema and DEMO_SERVICES is SERVICES (the SDK-safe copies have not drifted)", () => {
    expect([...DEMO_SERVICES]).toEqual([...SERVICES]);
    expect(z.toJSONSchema(DemoFaultsSchema)).toEqual(z.toJSONSchema(FaultsSchema));
  });
});

describe("GET /api/demo/services", () => {
  it("lists every service with its faults in force and the fault controls it acts on", async () => {
    await fetch(`${demo.url}/reports/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ failToRelease: true }),
    });
    const res = await call("GET", "/api/demo/services", { token: tokens.admin });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.demoUrl).toBe(demo.url);
    expect(body.services.map((s: { name: string }) => s.name)).toEqual(["shop", "crm", "mailer", "reports", "inference"]);
    const byName = Object.fromEntries(body.services.map((s: { name: string }) => [s.name, s]));
    expect(byName.reports.faults).toEqual({ failToRelease: true });
    expect(byName.shop.faults).toEqual({});
    expect(byName.shop.applicableFaults).toEqual(["latencyMs", "acceptThenTimeout", "cancelUnavailable", "ignoreCancellation"]);
    expect(byName.crm.applicableFaults).toEqual(["latencyMs", "acceptThenTimeout", "someoneElseEdits"]);
    expect(byName.mailer.applicableFaults).toEqual(["latencyMs", "acceptThenTimeout", "cancelUnavailable", "failToRelease"]);
    expect(byName.reports.applicableFaults).toEqual(["latencyMs", "cancelUnavailable", "ignoreCancellation", "failToRelease"]);
    expect(byName.inference.applicableFaults).toEqual(["latencyMs"]);
    for (const s of body.services) expect(s.description).not.toBe("");
  });
});

describe("POST /api/demo/services/{service}/faults", () => {
  it("sets the service's faults, reads them back, and the service really behaves that way", async () => {
    const res = await call("POST", "/api/demo/services/shop/faults", { token: tokens.admin, body: { cancelUnavailable: true, latencyMs: 5 } });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ service: "shop", faults: { cancelUnavailable: true, latencyMs: 5 } });

    // read back: through the API (per service and in the list) and from the demo server itself
    expect(await json(await call("GET", "/api/demo/services/shop/faults", { token: tokens.admin }))).toEqual({
      service: "shop",
      faults: { cancelUnavailable: true, latencyMs: 5 },
    });
    const list = await json(await call("GET", "/api/demo/services", { token: tokens.admin }));
    expect(list.services.find((s: { name: string }) => s.name === "shop").faults).toEqual({ cancelUnavailable: true, latencyMs: 5 });
    expect(await faultsOnServer("shop")).toEqual({ cancelUnavailable: true, latencyMs: 5 });
    expect(await faultsOnServer("crm")).toEqual({}); // only the shop changed

    // the shop's cancel endpoint is now unavailable …
    const { orderId } = await placeOrder("faults-1");
    const refused = await fetch(`${demo.url}/shop/orders/${orderId}/cancel`, { method: "POST" });
    expect(refused.status).toBe(503);

    // … until the faults are cleared ({} replaces them)
    const cleared = await call("POST", "/api/demo/services/shop/faults", { token: tokens.admin, body: {} });
    expect(await json(cleared)).toEqual({ service: "shop", faults: {} });
    const cancelled = await fetch(`${demo.url}/shop/orders/${orderId}/cancel`, { method: "POST" });
    expect(cancelled.status).toBe(202);
    expect((await cancelled.json()).status).toBe("cancelled");
  });

  it("replaces the settings: a fault left out is switched off", async () => {
    await call("POST", "/api/demo/services/crm/faults", { token: tokens.admin, body: { someoneElseEdits: true, acceptThenTimeout: true } });
    await call("POST", "/api/demo/services/crm/faults", { token: tokens.admin, body: { someoneElseEdits: true } });
    expect(await faultsOnServer("crm")).toEqual({ someoneElseEdits: true });
  });

  it("bad input → 400 naming the field, and nothing changed", async () => {
    await call("POST", "/api/demo/services/shop/faults", { token: tokens.admin, body: { ignoreCancellation: true } });
    const before = await allFaultsOnServer();
    const cases: [unknown, RegExp][] = [
      [{ latencyMs: -5 }, /latencyMs/],
      [{ latencyMs: 1.5 }, /latencyMs/],
      [{ latencyMs: 120_000 }, /latencyMs/],
      [{ cancelUnavailable: "yes" }, /cancelUnavailable/],
      [{ cancelUnavailable: true, dropEverything: true }, /dropEverything/],
    ];
    for (const [body, field] of cases) {
      const res = await call("POST", "/api/demo/services/shop/faults", { token: tokens.admin, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      const error = (await json(res)).error;
      expect(error.code).toBe("bad_request");
      expect(error.message).toMatch(field);
    }
    const notJson = await call("POST", "/api/demo/services/shop/faults", {
      token: tokens.admin,
      rawBody: "{cancelUnavailable: true",
      headers: { "content-type": "application/json" },
    });
    expect(notJson.status).toBe(400);
    expect(await allFaultsOnServer()).toEqual(before);
    expect(before.shop).toEqual({ ignoreCancellation: true });
  });

  it("an unknown service → 404 naming the services that exist", async () => {
    const res = await call("POST", "/api/demo/services/bank/faults", { token: tokens.admin, body: { cancelUnavailable: true } });
    expect(res.status).toBe(404);
    expect((await json(res)).error.message).toMatch(/no demo service "bank".*shop, crm, mailer, reports, inference/);
    expect((await call("GET", "/api/demo/services/bank/faults", { token: tokens.admin })).status).toBe(404);
    expect((await call("GET", "/api/demo/services/bank/witness", { token: tokens.admin })).status).toBe(404);
  });
});

describe("GET /api/demo/services/{service}/witness", () => {
  it("shows what the service really did: a real call appears, afterSeq and limit narrow it", async () => {
    const { orderId } = await placeOrder("witness-1");
    const res = await call("GET", "/api/demo/services/shop/witness", { token: tokens.admin });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.service).toBe("shop");
    expect(body.omitted).toBe(0);
    const created = body.witness.find((e: { action: string; subject: string }) => e.action === "order_created" && e.subject === orderId);
    expect(created).toMatchObject({ service: "shop", detail: { idempotencyKey: "witness-1", items: [{ sku: "chair", quantity: 2 }], amountCents: 12000 } });
    expect(Date.parse(created.at)).not.toBeNaN();
    expect(body.witness.every((e: { service: string }) => e.service === "shop")).toBe(true);

    // polling: only what happened after the last entry seen
    await fetch(`${demo.url}/shop/orders/${orderId}/cancel`, { method: "POST" });
    const after = await json(await call("GET", `/api/demo/services/shop/witness?afterSeq=${created.seq}`, { token: tokens.admin }));
    expect(after.witness.map((e: { action: string }) => e.action)).toEqual(["order_cancelled"]);

    // limit keeps the most recent, and says how many were left out
    await placeOrder("witness-2");
    const all = (await json(await call("GET", "/api/demo/services/shop/witness", { token: tokens.admin }))).witness;
    const last = await json(await call("GET", "/api/demo/services/shop/witness?limit=1", { token: tokens.admin }));
    expect(last.witness).toEqual([all.at(-1)]);
    expect(last.witness[0].action).toBe("order_created");
    expect(last.omitted).toBe(all.length - 1);

    expect((await call("GET", "/api/demo/services/shop/witness?limit=0", { token: tokens.admin })).status).toBe(400);
    expect((await call("GET", "/api/demo/services/crm/witness", { token: tokens.admin })).status).toBe(200);
  });
});

describe("roles", () => {
  it("only admin tokens: an agent or worker token → 403, no token → 401, and nothing changed", async () => {
    const before = await allFaultsOnServer();
    for (const role of ["agent", "worker"] as const) {
      for (const [method, path, body] of [
        ["GET", "/api/demo/services", undefined],
        ["GET", "/api/demo/services/shop/faults", undefined],
        ["POST", "/api/demo/services/shop/faults", { cancelUnavailable: true }],
        ["GET", "/api/demo/services/shop/witness", undefined],
      ] as const) {
        const res = await call(method, path, { token: tokens[role], body });
        expect(res.status, `${role} ${method} ${path}`).toBe(403);
        expect((await json(res)).error.code).toBe("forbidden");
      }
    }
    expect((await call("POST", "/api/demo/services/shop/faults", { body: { cancelUnavailable: true } })).status).toBe(401);
    expect((await call("GET", "/api/demo/services")).status).toBe(401);
    expect(await allFaultsOnServer()).toEqual(before);
  });
});

describe("when the demo services are not running", () => {
  it("every route answers 503 with a message that says so (never an empty list of faults)", async () => {
    const gone = await startDemoServer({ file: ":memory:" });
    await gone.close(); // a port nothing listens on any more
    process.env.STOPLINE_DEMO_URL = gone.url;
    try {
      for (const [method, path, body] of [
        ["GET", "/api/demo/services", undefined],
        ["POST", "/api/demo/services/shop/faults", { cancelUnavailable: true }],
        ["GET", "/api/demo/services/shop/witness", undefined],
      ] as const) {
        const res = await call(method, path, { token: tokens.admin, body });
        expect(res.status, `${method} ${path}`).toBe(503);
        const error = (await json(res)).error;
        expect(error.code).toBe("unavailable");
        expect(error.message).toContain(`the demo services are not running at ${gone.url}`);
      }
    } finally {
      process.env.STOPLINE_DEMO_URL = demo.url;
    }
  });
});
