import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { contract } from "../lib/api/contract";
import { EVENT_TYPES } from "../lib/api/event-schemas";
import { accessible, fitsWidth } from "./page-checks";

/**
 * The console against the real server (playwright.config.ts starts `npm start` on a fresh SQLite database
 * with a fixed bootstrap token). Tasks are created and stopped through the HTTP API, as an agent would;
 * the page must follow through its live event stream, without a reload. Screenshots of each state go to
 * output/screenshots/ (gitignored) for a person to look at.
 */

const TOKEN = process.env.STOPLINE_BOOTSTRAP_TOKEN ?? "";
const AUTH = { Authorization: `Bearer ${TOKEN}` };

const shot = (page: Page, name: string, fullPage = true) => page.screenshot({ path: `output/screenshots/${name}.png`, fullPage });

async function createTask(request: APIRequestContext, title: string, extra: Record<string, unknown> = {}) {
  const response = await request.post("/api/tasks", { headers: AUTH, data: { title, ...extra } });
  expect(response.status(), await response.text()).toBe(201);
  return (await response.json()) as { id: string; intentVersion: number };
}

test.describe.configure({ mode: "serial" });

test.beforeAll(() => {
  expect(TOKEN, "STOPLINE_BOOTSTRAP_TOKEN must be set by playwright.config.ts").not.toBe("");
});

test("GET /api/tasks - 401 without credentials", async ({ request }) => {
  const response = await request.get("/api/tasks");
  expect(response.status()).toBe(401);
  expect((await response.json()).error.code).toBe("unauthorized");
});

test("GET /console - a signed-out browser sees only the sign-in form", async ({ page }) => {
  await page.goto("/console");
  await expect(page.getByRole("heading", { level: 1, name: "Sign in to the console" })).toBeVisible();
  // Account sign-in leads; the admin-token form is the secondary "API token" option, closed until asked for.
  await expect(page.getByLabel("Email")).toBeVisible();
  await expect(page.getByLabel("Password")).toBeVisible();
  await expect(page.getByLabel("Admin token")).toBeHidden();
  await page.getByText("Sign in with an API token instead").click();
  await expect(page.getByLabel("Admin token")).toBeVisible();
  await expect(page.getByRole("button", { name: "Sign in with token" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Tasks" })).toHaveCount(0);
  await expect(page.getByRole("table")).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Sign out" })).toHaveCount(0);
  await shot(page, "console-signed-out");
});

test("GET /console - sign in, tasks appear and stop live without a reload, filter, sign out", async ({ page, request }) => {
  test.slow(); // a long scenario against a real server, on machines that are often busy
  await page.goto("/console");

  // A wrong token: the API's message is shown, and the form stays.
  // The admin-token form is the secondary way in, behind "Sign in with an API token instead".
  if (await page.locator('[data-testid="api-token-option"]:not([open])').count()) await page.getByText("Sign in with an API token instead").click();
  await page.getByLabel("Admin token").fill("stl_this_token_does_not_exist_123");
  await page.getByRole("button", { name: "Sign in with token" }).click();
  await expect(page.locator("form").getByRole("alert")).toContainText("That token is not valid");
  await shot(page, "console-sign-in-error");

  // The admin-token form is the secondary way in, behind "Sign in with an API token instead".
  if (await page.locator('[data-testid="api-token-option"]:not([open])').count()) await page.getByText("Sign in with an API token instead").click();
  await page.getByLabel("Admin token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in with token" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Tasks" })).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: "Live" })).toBeVisible();

  const existing = ((await (await request.get("/api/tasks?limit=200", { headers: AUTH })).json()) as { tasks: unknown[] }).tasks.length;
  if (existing === 0) {
    await expect(page.getByRole("heading", { name: "No tasks yet", exact: true })).toBeVisible();
    await expect(page.getByRole("link", { name: /API docs/ }).last()).toHaveAttribute("href", "/api-docs");
    await shot(page, "console-empty");
  } else {
    test.info().annotations.push({ type: "note", description: `empty state not checked: ${existing} task(s) existed before this test` });
  }

  // Anything below that reloads or navigates the page loses this marker.
  await page.evaluate(() => Object.assign(window, { __stoplineMarker: "not reloaded" }));

  // An agent creates a task through the API: it appears by itself.
  const booking = await createTask(request, "Book a table for four at Cervejaria Ramiro, Friday 8 pm", { conversationId: "conv-7f3a" });
  const bookingRow = page.locator(`tr[data-task-id="${booking.id}"]`);
  await expect(bookingRow).toBeVisible();
  await expect(bookingRow.getByTestId("standing")).toHaveText("running");
  await expect(bookingRow.getByTestId("awaiting")).toHaveText("nothing awaiting");
  await expect(page.getByTestId("announcer")).toContainText("New task “Book a table for four");

  // Its one child is running and cannot be stopped (mechanism "none"), so after Stop the task stays
  // "stopping" until that child ends — the cancellation engine watches it to completion. The tool name
  // is one no in-process worker serves, so this test is the only worker that claims it.
  const scheduled = await request.post(`/api/tasks/${booking.id}/work-items`, {
    headers: AUTH,
    data: { kind: "external_action", toolName: "e2e_reserve_table", mechanism: "none", intentVersion: booking.intentVersion },
  });
  expect(scheduled.status(), await scheduled.text()).toBe(201);
  const claim = await request.post("/api/workers/claim", {
    headers: AUTH,
    data: { workerId: "e2e-worker", toolNames: ["e2e_reserve_table"], leaseMs: 120_000 },
  });
  expect(claim.status(), await claim.text()).toBe(200);
  const child = (await claim.json()).workItem as { id: string; leaseToken: string };
  expect(child).not.toBeNull();

  // A second task with two work items: the work-item count follows the ledger too.
  const report = await createTask(request, "Summarise the Q3 churn report for the leadership sync");
  for (const toolName of ["e2e_fetch_report", "e2e_draft_summary"]) {
    const scheduled = await request.post(`/api/tasks/${report.id}/work-items`, {
      headers: AUTH,
      data: { kind: "local_worker", toolName, mechanism: "abort_signal", intentVersion: report.intentVersion },
    });
    expect(scheduled.status(), await scheduled.text()).toBe(201);
  }
  await createTask(request, "Draft replies to the 12 open support tickets");
  const reportRow = page.locator(`tr[data-task-id="${report.id}"]`);
  await expect(reportRow).toContainText("e2e_draft_summary, e2e_fetch_report");
  await expect(page.locator("tbody tr")).toHaveCount(existing + 3);
  await shot(page, "console-with-tasks");

  // New rows are highlighted for a moment; wait for that to pass so the next change stands out.
  await expect(page.locator("tr[data-changed]")).toHaveCount(0);

  // Stop through the API: the badge turns to "stopping" live, and the stop time and reason appear.
  const cancel = await request.post(`/api/tasks/${booking.id}/cancel`, { headers: AUTH, data: { reason: "the user pressed Stop" } });
  expect(cancel.status(), await cancel.text()).toBe(202);
  // Its child cannot be stopped (mechanism none) and still runs: once the engine's pass settled, the row says so —
  // "could not stop", never a settled "stopped".
  await expect(bookingRow.getByTestId("standing")).toHaveText("could not stop", { timeout: 10_000 });
  await expect(page.getByTestId("announcer")).toContainText("Stop was pressed and a step is still running.");
  await expect(bookingRow).toContainText("the user pressed Stop");
  await expect(page.locator("tr[data-changed]")).toHaveCount(1);
  await expect(bookingRow).toHaveAttribute("data-changed", "true");
  expect(await page.evaluate(() => (window as unknown as { __stoplineMarker?: string }).__stoplineMarker)).toBe("not reloaded");
  await shot(page, "console-after-cancel");

  // Filters: by stage, and by title (other tasks may exist when the suite runs more than once).
  const rows = page.locator("tbody tr");
  await page.getByRole("radio", { name: /Could not stop/ }).check();
  await expect(bookingRow).toBeVisible();
  await expect(reportRow).toHaveCount(0);
  for (const standing of await rows.getByTestId("standing").allTextContents()) expect(standing).toBe("could not stop");
  await page.getByRole("radio", { name: /^All/ }).check();
  const search = page.getByRole("searchbox", { name: /Search tasks/ });
  await search.fill("no task is called this");
  await expect(page.getByText("No tasks match these filters.")).toBeVisible();
  await page.getByRole("button", { name: "Clear filters" }).click();
  await expect(search).toHaveValue("");
  await expect(rows).toHaveCount(existing + 3);
  await search.fill("CHURN report");
  await expect(reportRow).toBeVisible();
  await expect(bookingRow).toHaveCount(0);
  for (const title of await rows.locator("th").allTextContents()) expect(title.toLowerCase()).toContain("churn report");
  await shot(page, "console-filtered");
  await search.fill("");

  // The unstoppable child ends: the engine settles the task, and the badge turns to "cancelled" live.
  const done = await request.post(`/api/work-items/${child.id}/complete`, {
    headers: AUTH,
    data: { leaseToken: child.leaseToken, outcome: "completed", result: { reservation: "R-1042" } },
  });
  expect(done.status(), await done.text()).toBe(200);
  // Its child could not be stopped and finished anyway: a Stop with effects, not a clean one.
  await expect(bookingRow.getByTestId("standing")).toHaveText("stopped — with effects", { timeout: 10_000 });
  await expect(page.getByTestId("announcer")).toContainText("Stopped, but something took (or may have taken) effect or was left behind.");
  await shot(page, "console-cancelled");
  expect(await page.evaluate(() => (window as unknown as { __stoplineMarker?: string }).__stoplineMarker)).toBe("not reloaded");

  // Sign out: the form is back and the cookie no longer opens the API.
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Sign in to the console" })).toBeVisible();
  expect((await page.request.get("/api/tasks")).status()).toBe(401);
});

test("GET /console - a dropped event stream shows reconnecting… and recovers", async ({ page }) => {
  const signIn = await page.request.post("/api/session", { data: { token: TOKEN } });
  expect(signIn.status(), await signIn.text()).toBe(200);

  await page.route("**/api/events**", (route) => route.abort("connectionreset"));
  await page.goto("/console");
  await expect(page.getByRole("heading", { level: 1, name: "Tasks" })).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: "Reconnecting…" })).toBeVisible();
  await shot(page, "console-reconnecting", false);

  await page.unroute("**/api/events**");
  await expect(page.getByRole("status").filter({ hasText: "Live" })).toBeVisible({ timeout: 15_000 });
});

test("GET /console - a session that ends while the page is open asks to sign in again", async ({ page, request }) => {
  const signIn = await page.request.post("/api/session", { data: { token: TOKEN } });
  expect(signIn.status(), await signIn.text()).toBe(200);
  await page.goto("/console");
  await expect(page.getByRole("status").filter({ hasText: "Live" })).toBeVisible();

  // The cookie disappears (expiry, sign-out in another tab); the open stream still delivers the next
  // event, and the refetch it triggers is refused.
  await page.context().clearCookies();
  await createTask(request, "Check the refund status of order 4411");
  await expect(page.getByRole("heading", { name: "Your session ended — sign in again" })).toBeVisible();
  await page.getByRole("link", { name: "Sign in again" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Sign in to the console" })).toBeVisible();
});

test("GET /api-docs - every route of the contract, with roles and a link to the OpenAPI document", async ({ page, request }) => {
  test.slow(); // a long page: its full-page screenshot alone takes seconds on a busy machine
  await page.goto("/api-docs");
  await expect(page.getByRole("heading", { level: 1, name: "Stopline API" })).toBeVisible();
  // Read every card once (one round trip, not a few per route: the contract has over fifty routes).
  await expect(page.locator("article[id]").first()).toBeVisible();
  const cards = new Map(
    await page
      .locator("article[id]")
      .evaluateAll((articles) => articles.map((a) => [a.id, { heading: a.querySelector("h3")?.textContent ?? "", text: a.textContent ?? "" }] as const)),
  );
  for (const [operationId, route] of Object.entries(contract)) {
    const card = cards.get(operationId);
    expect(card, `a card for ${operationId}`).toBeTruthy();
    expect(card!.heading.toLowerCase(), operationId).toContain(route.method.toLowerCase());
    expect(card!.heading, operationId).toContain(route.path);
    expect(card!.text, operationId).toContain(route.summary);
    if (route.auth === "public") expect(card!.text, operationId).toContain("Public — no token needed");
    else for (const role of route.auth) expect(card!.text, `${operationId} names the role ${role}`).toContain(role);
  }
  await expect(page.locator("article#createTask")).toContainText("title");
  await expect(page.locator("article#createTask")).toContainText("1–500 chars");

  const link = page.getByRole("link", { name: /\/api\/openapi\.json/ });
  await expect(link).toHaveAttribute("href", "/api/openapi.json");
  const document = await request.get("/api/openapi.json");
  expect(document.status()).toBe(200);
  expect((await document.json()).openapi).toBe("3.1.0");

  // The ledger's events: every type of the catalogue, with the shape of its data.
  const catalogue = page.locator(`dl[aria-label="Event types and their data"]`);
  const entry = (type: string) => catalogue.locator(`[data-testid="event-type"][data-type="${type}"]`);
  await expect(catalogue.getByTestId("event-type")).toHaveCount(EVENT_TYPES.length);
  for (const type of EVENT_TYPES) await expect(entry(type).getByRole("term")).toHaveText(type);
  await expect(entry("task.cancel_requested").getByRole("definition")).toContainText("intentVersion: number");
  await expect(entry("task.cancelled").getByRole("definition")).toHaveText("none");
  await accessible(page);
  await catalogue.screenshot({ path: "output/screenshots/api-docs-events-desktop.png" });
  await page.setViewportSize({ width: 390, height: 844 });
  await fitsWidth(page); // each type stacks above its fields
  await catalogue.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "output/screenshots/api-docs-events-phone.png" });
  await page.setViewportSize({ width: 1280, height: 900 });

  await shot(page, "api-docs", false);
  await shot(page, "api-docs-full");
});
