import { expect, test, type APIRequestContext } from "@playwright/test";
import { WIDTHS, accessible } from "./page-checks";

/**
 * Issue 20, item 5 — times in one format, in the reader's time zone: a Stop whose outcome a person must establish
 * reads its deadline in the summary's sentence (written by the server), in the step's line and in "needs review". A
 * reader in Kolkata (UTC+5:30: no whole-hour coincidence) sees every one of them in their own clock, hour and minute —
 * never "UTC", never seconds, never two spellings of one instant. Desktop and phone, axe 0 serious/critical.
 * Screenshots: output/screenshots/reader-times-<width>.png.
 */

const TOKEN = process.env.STOPLINE_BOOTSTRAP_TOKEN ?? "";
const AUTH = { Authorization: `Bearer ${TOKEN}` };

test.describe.configure({ mode: "serial", timeout: 120_000 });

async function uncertainOrder(request: APIRequestContext, conversationId: string, orderId: string) {
  const tool = `e2e_times_order_${orderId}`;
  const created = await request.post("/api/tasks", { headers: AUTH, data: { title: `Place order ${orderId}`, conversationId } });
  const task = (await created.json()) as { id: string; intentVersion: number };
  await request.post(`/api/tasks/${task.id}/work-items`, {
    headers: AUTH,
    data: { kind: "external_action", toolName: tool, mechanism: "none", intentVersion: task.intentVersion, commitsEffect: true },
  });
  const child = (
    await (await request.post("/api/workers/claim", { headers: AUTH, data: { workerId: "e2e-times", toolNames: [tool], leaseMs: 120_000 } })).json()
  ).workItem as { id: string; leaseToken: string };
  const post = (path: string, data: Record<string, unknown>) =>
    request.post(`/api/work-items/${child.id}/${path}`, { headers: AUTH, data: { leaseToken: child.leaseToken, ...data } });
  expect((await post("checkpoint", {})).status()).toBe(200);
  expect((await post("submitted", { operationId: orderId, reversible: false, description: `order ${orderId}` })).status()).toBe(200);
  expect((await post("uncertain", { reason: "the shop timed out" })).status()).toBe(200);
  expect((await request.post(`/api/tasks/${task.id}/cancel`, { headers: AUTH, data: { reason: "the user pressed Stop" } })).status()).toBe(202);
  let deadline = "";
  await expect
    .poll(
      async () => {
        const { reviewItems } = (await (await request.get(`/api/review-items?taskId=${task.id}`, { headers: AUTH })).json()) as {
          reviewItems: { kind: string; deadline: string }[];
        };
        deadline = reviewItems.find((r) => r.kind === "resolve_uncertain")?.deadline ?? "";
        return deadline;
      },
      { timeout: 30_000 },
    )
    .not.toBe("");
  return { taskId: task.id, deadline };
}

for (const size of WIDTHS) {
  test(`${size.name}: a deadline reads the same, in the reader's zone, in every line of the Stop's card`, async ({ browser, request }) => {
    const conversation = `conv-times-${size.name}-${Date.now()}`;
    const { taskId, deadline } = await uncertainOrder(request, conversation, `o-times-${size.name}-${Date.now()}`);
    const context = await browser.newContext({ viewport: size, timezoneId: "Asia/Kolkata", locale: "en-GB" });
    const page = await context.newPage();
    await page.goto(`/chat/${conversation}`);
    await expect(page.getByTestId("entry-sign-in")).toBeVisible();
    await page.getByText("Sign in with an API token instead").click();
    await page.getByLabel("Admin token").fill(TOKEN);
    await page.getByRole("button", { name: "Sign in with token" }).click();
    const turn = page.locator(`[data-task-id="${taskId}"]`);
    const summary = turn.getByTestId("stop-summary");
    await expect(summary.getByTestId("user-message")).toContainText("a person decides by", { timeout: 20_000 });

    const local = new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", timeZone: "Asia/Kolkata" }).format(new Date(deadline));
    await expect(summary.getByTestId("user-message")).toContainText(`a person decides by ${local}`);
    await expect(summary.getByTestId("summary-needs-review")).toContainText(`by ${local}`);
    await expect(turn).toContainText(`a person decides by ${local}`);
    // one spelling: no UTC, no seconds anywhere in the turn
    await expect(turn).not.toContainText("UTC");
    expect(await turn.innerText()).not.toMatch(/\b\d\d:\d\d:\d\d\b/);
    await accessible(page);
    await page.screenshot({ path: `output/screenshots/reader-times-${size.name}.png`, fullPage: true });
    await context.close();
  });
}
