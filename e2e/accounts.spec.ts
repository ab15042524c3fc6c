import { expect, test, type Browser, type Page } from "@playwright/test";
import { E2E_BASE_URL } from "./env";

/**
 * Accounts and roles against the real `npm start` server, which seeded one demo account per role
 * (lib/auth/seed-demo-accounts.ts). A user starts a request in the chat and stops it; a second user cannot
 * open that conversation or its task; support reads the console without write controls, and every write
 * route refuses it; a cross-site POST with a session cookie is refused. Screenshots: output/screenshots/accounts-*.png.
 */

const PASSWORD = (role: string) => process.env.STOPLINE_DEMO_PASSWORD || `stopline-${role}-demo`;
const shot = (page: Page, name: string) => page.screenshot({ path: `output/screenshots/accounts-${name}.png` });
const SAME_ORIGIN = { origin: E2E_BASE_URL };

async function signIn(browser: Browser, who: "user" | "user2" | "operator" | "support" | "admin") {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto("/sign-in");
  await expect(page.getByRole("heading", { level: 1, name: "Sign in to Stopline" })).toBeVisible();
  await page.getByLabel("Email").fill(`${who}@stopline.local`);
  await page.getByLabel("Password").fill(PASSWORD(who));
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(who.startsWith("user") ? /\/chat$/ : /\/console$/);
  return page;
}

test.describe.configure({ mode: "serial" });

let conversationUrl = "";
let taskId = "";

test("GET /sign-in - a wrong password is refused with an explanation", async ({ page }) => {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill("user@stopline.local");
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.locator("form").getByRole("alert")).toContainText("do not match an account");
  await shot(page, "sign-in-error");
});

test("user: sign in, start a request in the chat, Stop it", async ({ browser }) => {
  const page = await signIn(browser, "user");
  await expect(page.getByRole("heading", { level: 1, name: "Chat", exact: true })).toBeVisible();
  const box = page.getByRole("textbox", { name: "Message to the agent" });
  await box.fill("export a report of 3000 rows");
  await box.press("Enter");
  await expect(page).toHaveURL(/\/chat\/[\w-]+$/);
  conversationUrl = new URL(page.url()).pathname;
  const turn = page.getByTestId("turn").last();
  await expect(turn.getByTestId("agent-reply")).toContainText("Exporting a report of 3000 rows.");
  taskId = (await turn.getAttribute("data-task-id"))!;
  expect(taskId).toBeTruthy();
  await shot(page, "user-chat");

  await expect(page.getByTestId("stop-button")).not.toHaveAttribute("aria-disabled", "true", { timeout: 15_000 });
  await page.getByTestId("stop-button").click();
  await expect
    .poll(async () => (await (await page.request.get(`/api/tasks/${taskId}`)).json()).cancelRequestedBy, { timeout: 10_000 })
    .toBe("user:user@stopline.local");
  // Their own tasks only: the list holds this one task.
  const list = await (await page.request.get("/api/tasks")).json();
  expect(list.tasks.map((t: { id: string }) => t.id)).toEqual([taskId]);
  await page.context().close();
});

test("user: a second user cannot open that conversation or its task", async ({ browser }) => {
  expect(conversationUrl).not.toBe("");
  const page = await signIn(browser, "user2");
  const response = await page.goto(conversationUrl);
  expect(response?.status()).toBe(404);
  await expect(page.getByTestId("stop-button")).toHaveCount(0);
  await shot(page, "user2-not-found");
  expect((await page.request.get(`/api/tasks/${taskId}`)).status()).toBe(404);
  expect((await page.request.get(`/api/tasks/${taskId}/cancellation`)).status()).toBe(404);
  expect((await page.request.post(`/api/tasks/${taskId}/cancel`, { data: { reason: "not mine" }, headers: SAME_ORIGIN })).status()).toBe(404);
  expect((await page.request.get(`/api/tasks?conversationId=${conversationUrl.split("/").pop()}`).then((r) => r.json())).tasks).toEqual([]);
  await page.context().close();
});

test("support: reads the console, sees no write controls, and every write route refuses", async ({ browser }) => {
  const page = await signIn(browser, "support");
  await expect(page.getByText(taskId.slice(0, 8)).or(page.getByRole("table")).first()).toBeVisible({ timeout: 15_000 });
  await expect(page.getByRole("button", { name: /^(stop|approve|reject|resolve|confirm|create|save)/i })).toHaveCount(0);
  await shot(page, "support-console");

  expect((await page.request.get(`/api/tasks/${taskId}`)).status()).toBe(200);
  const writes: [string, unknown][] = [
    [`/api/tasks/${taskId}/cancel`, { reason: "support tries" }],
    [`/api/tasks/${taskId}/proposal/confirm`, { proposalVersion: 1 }],
    ["/api/review-items/00000000-0000-4000-8000-000000000000/decision", { decision: "reject", reason: "no" }],
    [`/api/conversations/${conversationUrl.split("/").pop()}/messages`, { text: "hello" }],
    ["/api/tokens", { name: "x", role: "admin" }],
    ["/api/tasks", { title: "x" }],
  ];
  for (const [path, data] of writes) {
    expect((await page.request.post(path, { data, headers: SAME_ORIGIN })).status(), path).toBe(403);
  }
  await page.context().close();
});

test("a cross-site POST to Stop with a session cookie is refused", async ({ browser }) => {
  const page = await signIn(browser, "user");
  const refused = await page.request.post(`/api/tasks/${taskId}/cancel`, {
    data: { reason: "forged" },
    headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
  });
  expect(refused.status()).toBe(403);
  expect(await refused.text()).toMatch(/cross-site/);
  // Signing out ends the session in the database: the cookie no longer works.
  await page.goto("/sign-in");
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("button", { name: "Sign in" })).toBeVisible();
  expect((await page.request.get("/api/tasks")).status()).toBe(401);
  await page.context().close();
});
