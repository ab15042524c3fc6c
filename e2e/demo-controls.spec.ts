import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { E2E_PORT } from "./env";

/**
 * The demo services' fault controls in the console (/console/demo) against the real server: playwright.config.ts
 * starts `npm start`, which runs the demo services at port + 1. A fault switched on in the page is saved
 * through the API, is still on after a reload, and the API (and the demo service itself) confirm it.
 * Screenshots go to output/screenshots/console-demo*.png.
 */

const TOKEN = process.env.STOPLINE_BOOTSTRAP_TOKEN ?? "";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const DEMO_URL = `http://127.0.0.1:${E2E_PORT + 1}`;

const shot = (page: Page, name: string, fullPage = true) => page.screenshot({ path: `output/screenshots/${name}.png`, fullPage });

async function shopFaults(request: APIRequestContext) {
  const response = await request.get("/api/demo/services/shop/faults", { headers: AUTH });
  expect(response.status(), await response.text()).toBe(200);
  return ((await response.json()) as { faults: Record<string, unknown> }).faults;
}

async function signIn(page: Page) {
  // The admin-token form is the secondary way in, behind "Sign in with an API token instead".
  if (await page.locator('[data-testid="api-token-option"]:not([open])').count()) await page.getByText("Sign in with an API token instead").click();
  await page.getByLabel("Admin token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in with token" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Demo services" })).toBeVisible();
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ request }) => {
  expect(TOKEN, "STOPLINE_BOOTSTRAP_TOKEN must be set by playwright.config.ts").not.toBe("");
  // start from a shop without faults (the demo world's store outlives a server restart)
  expect((await request.post("/api/demo/services/shop/faults", { headers: AUTH, data: {} })).status()).toBe(200);
});
test.afterAll(async ({ request }) => {
  // leave the demo world as it was found: the fault must not leak into other tests
  await request.post("/api/demo/services/shop/faults", { headers: AUTH, data: {} });
});

test("GET /api/demo/services - admin only", async ({ request }) => {
  expect((await request.get("/api/demo/services")).status()).toBe(401);
});

test("/console/demo - switch on “cancel endpoint unavailable” for the shop: saved, still on after a reload, confirmed by the API", async ({
  page,
  request,
}) => {
  test.slow(); // a real server on a machine that is often busy
  await page.goto("/console/demo");
  await expect(page.getByRole("heading", { level: 1, name: "Sign in to the console" })).toBeVisible();
  await shot(page, "console-demo-signed-out");
  await signIn(page);

  // a card per service, each with only the faults it acts on
  for (const name of ["Shop", "CRM", "Mailer", "Reports", "Inference"]) await expect(page.getByRole("region", { name, exact: true })).toBeVisible();
  const shop = page.getByRole("region", { name: "Shop", exact: true });
  await expect(shop.getByRole("switch")).toHaveCount(3);
  await expect(shop.getByRole("spinbutton", { name: "Latency" })).toHaveValue("0");
  await expect(shop.getByRole("switch", { name: "Someone else edits the record" })).toHaveCount(0);
  await expect(page.getByRole("region", { name: "Inference", exact: true }).getByRole("switch")).toHaveCount(0);
  await expect(page.getByRole("region", { name: "CRM", exact: true }).getByRole("switch", { name: "Someone else edits the record" })).toBeVisible();
  await expect(shop.getByTestId("fault-state")).toHaveText("behaving normally");
  await shot(page, "console-demo");

  const toggle = shop.getByRole("switch", { name: "Cancel endpoint unavailable" });
  await expect(toggle).toHaveAttribute("aria-checked", "false");
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-checked", "true");
  await expect(shop.getByRole("status").filter({ hasText: "Unsaved changes." })).toBeVisible();
  await shop.getByRole("button", { name: "Save", exact: true }).click();
  await expect(shop.getByRole("status").filter({ hasText: /^Saved at .+\. Now on: cancel endpoint unavailable\.$/ })).toBeVisible();
  await expect(shop.getByTestId("fault-state")).toHaveText("1 fault on");
  await shot(page, "console-demo-saved");

  // the API confirms it, and so does the shop itself: its cancel endpoint now answers 503
  expect(await shopFaults(request)).toEqual({ cancelUnavailable: true });
  expect(await (await request.get(`${DEMO_URL}/shop/faults`)).json()).toEqual({ cancelUnavailable: true });
  const order = await request.post(`${DEMO_URL}/shop/orders`, { data: { idempotencyKey: `e2e-demo-${Date.now()}`, items: [{ sku: "mug", quantity: 1 }] } });
  expect(order.status()).toBe(201);
  const { orderId } = (await order.json()) as { orderId: string };
  expect((await request.post(`${DEMO_URL}/shop/orders/${orderId}/cancel`)).status()).toBe(503);

  // a reload shows it on
  await page.reload();
  await expect(page.getByRole("heading", { level: 1, name: "Demo services" })).toBeVisible();
  await expect(shop.getByRole("switch", { name: "Cancel endpoint unavailable" })).toHaveAttribute("aria-checked", "true");
  await expect(shop.getByRole("switch", { name: "Ignore cancellation" })).toHaveAttribute("aria-checked", "false");

  // the witness log shows what the shop really did (refreshed by itself)
  await expect(shop.getByTestId("witness-shop")).toContainText(orderId);
  await expect(shop.getByTestId("witness-shop").locator("li").filter({ hasText: orderId }).first()).toContainText("order created");
  await shop.getByTestId("witness-shop").scrollIntoViewIfNeeded();
  await shot(page, "console-demo-witness");

  // a change made through the API shows without a reload (the faults in force are re-read)
  expect((await request.post("/api/demo/services/shop/faults", { headers: AUTH, data: { cancelUnavailable: true, latencyMs: 250 } })).status()).toBe(200);
  await expect(shop.getByRole("spinbutton", { name: "Latency" })).toHaveValue("250", { timeout: 15_000 });

  // clear all: off again, and the API agrees
  await shop.getByRole("button", { name: "Clear all faults" }).click();
  await expect(shop.getByRole("status").filter({ hasText: "No faults: the shop service behaves normally." })).toBeVisible();
  await expect(shop.getByRole("switch", { name: "Cancel endpoint unavailable" })).toHaveAttribute("aria-checked", "false");
  expect(await shopFaults(request)).toEqual({});
});

test("/console/demo - a refused save says why and keeps the change; services that do not answer say so", async ({ page }) => {
  await page.goto("/console/demo");
  if (await page.getByTestId("entry-sign-in").isVisible()) await signIn(page);
  const shop = page.getByRole("region", { name: "Shop", exact: true });
  await expect(shop.getByRole("switch", { name: "Ignore cancellation" })).toBeVisible();

  // the API refuses the save (as it would if the demo services went away in between)
  await page.route("**/api/demo/services/shop/faults", (route) =>
    route.fulfill({
      status: 503,
      json: { error: { code: "unavailable", message: "the demo services are not running at http://127.0.0.1:1 (npm start runs them unless STOPLINE_DEMO=0)" } },
    }),
  );
  await shop.getByRole("switch", { name: "Ignore cancellation" }).click();
  await shop.getByRole("button", { name: "Save", exact: true }).click();
  await expect(shop.getByRole("alert")).toHaveText(/^Not saved: The demo services are not running/);
  await expect(shop.getByRole("switch", { name: "Ignore cancellation" })).toHaveAttribute("aria-checked", "true");
  await expect(shop.getByRole("button", { name: "Save", exact: true })).toBeEnabled();
  await shot(page, "console-demo-save-refused");
  await page.unroute("**/api/demo/services/shop/faults");

  // the whole page when the demo services are down
  await page.route("**/api/demo/services", (route) =>
    route.fulfill({
      status: 503,
      json: { error: { code: "unavailable", message: "the demo services are not running at http://127.0.0.1:1 (npm start runs them unless STOPLINE_DEMO=0)" } },
    }),
  );
  await page.reload();
  await expect(page.getByRole("heading", { name: "The demo services are not answering" })).toBeVisible();
  await expect(page.getByRole("alert").filter({ hasText: "The demo services are not answering" })).toContainText("STOPLINE_DEMO=0");
  await shot(page, "console-demo-unavailable");
});

test("/console links to /console/demo and back", async ({ page }) => {
  await page.goto("/console");
  if (await page.getByTestId("entry-sign-in").isVisible()) {
    // The admin-token form is the secondary way in, behind "Sign in with an API token instead".
    if (await page.locator('[data-testid="api-token-option"]:not([open])').count()) await page.getByText("Sign in with an API token instead").click();
    await page.getByLabel("Admin token").fill(TOKEN);
    await page.getByRole("button", { name: "Sign in with token" }).click();
  }
  const nav = page.getByRole("navigation", { name: "Console" });
  await expect(nav.getByRole("link", { name: "Tasks" })).toHaveAttribute("aria-current", "page");
  await nav.getByRole("link", { name: "Demo services" }).click();
  await expect(page).toHaveURL(/\/console\/demo$/);
  await expect(page.getByRole("heading", { level: 1, name: "Demo services" })).toBeVisible();
  await expect(nav.getByRole("link", { name: "Demo services" })).toHaveAttribute("aria-current", "page");
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole("region", { name: "Shop", exact: true }).getByRole("switch", { name: "Cancel endpoint unavailable" })).toBeVisible();
  await shot(page, "console-demo-narrow", false);
  await nav.getByRole("link", { name: "Tasks" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Tasks" })).toBeVisible();
});
