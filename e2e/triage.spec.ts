import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { startWebhookReceiver, type WebhookReceiver } from "../lib/escalation/webhook-receiver";
import { personPage } from "./sign-in";
import { WIDTHS, accessible, fitsWidth } from "./page-checks";

/**
 * Issue 12, per role, in Chromium at desktop and at 390 px: the operator triages from the task list to the most
 * urgent item and decides it by keyboard; an uncertain outcome resolved as "took effect" reaches the person's chat;
 * a conflict shows what changed and offers only the choices still possible; an escalated item that no channel
 * received is listed, and a channel added later receives it, marked late; a user at /console gets the role card;
 * support reads a conversation without a composer. axe on every page: 0 critical, 0 serious.
 * Uncertain outcomes are made through the worker protocol over HTTP (a tool no in-process worker serves, so this
 * test is its worker): submitted, then reported uncertain, then stopped — nobody can ask the service, a person decides.
 * Screenshots: output/screenshots/triage-<width>-<state>.png.
 */

const TOKEN = process.env.STOPLINE_BOOTSTRAP_TOKEN ?? "";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const SECRET = "whsec_e2e_triage_receiver_0123456789";

test.describe.configure({ mode: "serial", timeout: 120_000 });

/** A task whose order's outcome nobody can establish but a person: submitted, reported uncertain, stopped. */
async function uncertainOrder(request: APIRequestContext, conversationId: string, orderId: string, riskLevel: "low" | "high" = "low") {
  const tool = `e2e_triage_order_${orderId}`;
  const created = await request.post("/api/tasks", {
    headers: AUTH,
    data: { title: `Place order ${orderId} for the Lisbon office`, conversationId, riskLevel },
  });
  expect(created.status(), await created.text()).toBe(201);
  const task = (await created.json()) as { id: string; intentVersion: number };
  const scheduled = await request.post(`/api/tasks/${task.id}/work-items`, {
    headers: AUTH,
    data: { kind: "external_action", toolName: tool, mechanism: "none", intentVersion: task.intentVersion, commitsEffect: true },
  });
  expect(scheduled.status(), await scheduled.text()).toBe(201);
  const claim = await request.post("/api/workers/claim", { headers: AUTH, data: { workerId: "e2e-triage", toolNames: [tool], leaseMs: 120_000 } });
  const child = (await claim.json()).workItem as { id: string; leaseToken: string };
  const post = (path: string, data: Record<string, unknown>) =>
    request.post(`/api/work-items/${child.id}/${path}`, { headers: AUTH, data: { leaseToken: child.leaseToken, ...data } });
  expect((await post("checkpoint", {})).status()).toBe(200);
  expect((await post("submitted", { operationId: orderId, reversible: false, description: `order ${orderId}` })).status()).toBe(200);
  expect((await post("uncertain", { reason: "the shop timed out" })).status()).toBe(200);
  const cancel = await request.post(`/api/tasks/${task.id}/cancel`, { headers: AUTH, data: { reason: "the user pressed Stop" } });
  expect(cancel.status(), await cancel.text()).toBe(202);
  let itemId = "";
  await expect
    .poll(
      async () => {
        const { reviewItems } = (await (await request.get(`/api/review-items?taskId=${task.id}`, { headers: AUTH })).json()) as {
          reviewItems: { id: string; kind: string }[];
        };
        itemId = reviewItems.find((r) => r.kind === "resolve_uncertain")?.id ?? "";
        return itemId;
      },
      { timeout: 30_000 },
    )
    .not.toBe("");
  return { taskId: task.id, itemId };
}

async function tokenSignIn(page: Page, path: string) {
  await page.goto(path);
  await expect(page.getByTestId("entry-sign-in")).toBeVisible();
  await page.getByText("Sign in with an API token instead").click();
  await page.getByLabel("Admin token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in with token" }).click();
}

for (const size of WIDTHS) {
  const shot = (page: Page, name: string) => page.screenshot({ path: `output/screenshots/triage-${size.name}-${name}.png`, fullPage: true });

  test(`${size.name}: the operator triages from the list to the most urgent item and decides it by keyboard; the person's chat says so`, async ({
    browser,
    request,
  }) => {
    const conversation = `conv-triage-${size.name}-${Date.now()}`;
    const first = await uncertainOrder(request, conversation, `o-${size.name}-1-${Date.now()}`);
    const second = await uncertainOrder(request, conversation, `o-${size.name}-2-${Date.now()}`);
    const context = await browser.newContext({ viewport: size });
    const page = await context.newPage();

    // Signed out: account sign-in first, the token form behind its own option.
    await page.goto("/console");
    await expect(page.getByLabel("Email")).toBeVisible();
    await expect(page.getByLabel("Admin token")).toBeHidden();
    await accessible(page);
    await shot(page, "signed-out");
    await tokenSignIn(page, "/console");
    await expect(page.getByRole("heading", { level: 1, name: "Tasks" })).toBeVisible();

    // The list, "needs me first": rows that wait for a person come before those that do not.
    await expect(page.getByTestId("sort")).toHaveValue("needs_me");
    const urgencies = await page.locator("tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-urgency")));
    const rank = { overdue: 0, due_soon: 1, uncertain: 2, rest: 3 } as Record<string, number>;
    expect(urgencies.map((u) => rank[u ?? "rest"])).toEqual([...urgencies.map((u) => rank[u ?? "rest"])].sort((a, b) => a - b));
    // Search by conversation: this test's two tasks, each a Stop with effects awaiting one decision, with dates.
    await page.getByRole("searchbox", { name: /Search tasks/ }).fill(conversation);
    const row = page.locator(`tr[data-task-id="${first.taskId}"]`);
    await expect(page.locator("tbody tr")).toHaveCount(2);
    await expect(row.getByTestId("standing")).toHaveText("stopped — with effects", { timeout: 20_000 });
    await expect(row.getByTestId("awaiting")).toContainText("1 awaiting decision");
    await expect(row.getByTestId("effects")).toContainText("1 outcome not yet known");
    await expect(row).toContainText(/started (\w{3} \d+|\d+ \w{3})/); // the date, not only the time
    await expect(page.getByTestId("nav-review-count")).toBeVisible();
    await fitsWidth(page);
    await accessible(page);
    await shot(page, "task-list");

    // To the review queue, and the item, by keyboard.
    await page.goto(`/console/review?item=${first.itemId}`);
    const card = page.locator(`li[id="${first.itemId}"]`);
    await expect(card.getByTestId("review-item")).toBeVisible();
    await expect(page.getByTestId("shortcut-help")).toContainText("j/k move");
    await card.focus();
    await page.keyboard.press("a"); // the main action: choose what happened
    await expect(card.getByRole("radio", { name: /It took effect/ })).toBeFocused();
    await page.keyboard.press("Space");
    await page.keyboard.press("Tab");
    await expect(card.getByLabel(/Reason/)).toBeFocused();
    await page.keyboard.type("The shop's back office lists the order");
    await shot(page, "deciding");
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("announcer")).toContainText("Resolved: it took effect");
    // The focus moved on to the next item.
    await expect(page.locator("li[data-current]")).not.toHaveAttribute("id", first.itemId);
    await expect(page.locator(`li[id="${second.itemId}"]`)).toBeAttached();
    await fitsWidth(page);
    await accessible(page);
    await shot(page, "decided");

    // The person's conversation says what the operator established.
    await page.goto(`/chat/${conversation}`);
    await expect(page.getByText(/An operator confirmed that order o-[\w-]+ took effect\./).first()).toBeVisible({ timeout: 20_000 });
    await fitsWidth(page);
    await accessible(page);
    await shot(page, "chat-confirmed");
    await context.close();
  });

  test(`${size.name}: a user at /console gets the role card; support reads a chat without a composer`, async ({ browser }) => {
    const user = await personPage(browser, "user", size);
    await user.goto("/console");
    await expect(user.getByTestId("not-for-role")).toContainText("The console is not for your role");
    await expect(user.getByRole("link", { name: "Open your chat" })).toHaveAttribute("href", "/chat");
    await expect(user.getByLabel("Admin token")).toHaveCount(0);
    await accessible(user);
    await shot(user, "user-role-card");
    await user.context().close();

    const support = await personPage(browser, "support", size);
    await support.goto("/chat");
    await expect(support.getByTestId("read-only-chat")).toBeVisible();
    await expect(support.getByRole("textbox")).toHaveCount(0);
    await expect(support.getByTestId("stop-button")).toHaveCount(0);
    await fitsWidth(support);
    await accessible(support);
    await shot(support, "support-chat");
    await support.goto("/console/escalations");
    await expect(support.getByRole("heading", { level: 1, name: "Escalations" })).toBeVisible();
    await expect(support.getByTestId("channels-read-only")).toBeVisible();
    await accessible(support);
    await shot(support, "support-escalations");
    await support.context().close();
  });
}

test("a conflict shows what changed (agent's version, version now, who, each write) and offers only the choices still possible", async ({
  browser,
  request,
}) => {
  test.setTimeout(180_000);
  const made = await request.post("/api/tokens", { headers: AUTH, data: { name: `triage-e2e-agent-${Date.now()}`, role: "agent" } });
  expect(made.status(), await made.text()).toBe(201);
  const AGENT = { Authorization: `Bearer ${((await made.json()) as { token: string }).token}` };
  const conversation = `conv-triage-conflict-${Date.now()}`;
  const turn = await request.post(`/api/conversations/${conversation}/messages`, {
    headers: AGENT,
    data: { text: "add customer Ada Lovelace ada.lovelace@example.com" },
  });
  expect(turn.status(), await turn.text()).toBe(201);
  const { taskId, proposal } = (await turn.json()) as { taskId: string; proposal: { version: number } };
  expect((await request.post(`/api/tasks/${taskId}/proposal/confirm`, { headers: AGENT, data: { proposalVersion: proposal.version } })).status()).toBe(201);
  await expect
    .poll(async () => ((await (await request.get(`/api/tasks/${taskId}`, { headers: AUTH })).json()) as { stage: string }).stage, { timeout: 60_000 })
    .toBe("completed");
  expect((await request.post(`/api/tasks/${taskId}/reversal`, { headers: AGENT, data: { reason: "the customer asked to be removed" } })).status()).toBe(200);
  type Item = { id: string; kind: string; proposal: { target: string; expectedVersion: string } | null };
  let item: Item | undefined;
  await expect
    .poll(
      async () => {
        item = ((await (await request.get(`/api/review-items?taskId=${taskId}`, { headers: AUTH })).json()) as { reviewItems: Item[] }).reviewItems.find(
          (r) => r.kind === "approve_compensation",
        );
        return !!item;
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  // Other staff edit the record in the CRM after the agent created it.
  const { demoUrl } = (await (await request.get("/api/demo/services", { headers: AUTH })).json()) as { demoUrl: string };
  expect((await request.post(`${demoUrl}/crm/records/${item!.proposal!.target}/edit`)).status()).toBe(200);
  // An approval now meets the edit: refused, nothing overwritten, escalated — and the service's account kept.
  const approve = await request.post(`/api/review-items/${item!.id}/decision`, {
    headers: AUTH,
    data: { decision: "approve", reason: "undo it", target: item!.proposal!.target, expectedVersion: item!.proposal!.expectedVersion },
  });
  expect(approve.status()).toBe(409);

  for (const size of WIDTHS) {
    const page = await (await browser.newContext({ viewport: size })).newPage();
    await tokenSignIn(page, `/console/review?item=${item!.id}`);
    const card = page.locator(`li[id="${item!.id}"]`);
    const conflict = card.getByTestId("conflict");
    await expect(conflict).toBeVisible({ timeout: 20_000 });
    await expect(conflict.getByTestId("agent-version")).toHaveText(item!.proposal!.expectedVersion);
    await expect(conflict.getByTestId("current-version")).not.toHaveText(item!.proposal!.expectedVersion);
    await expect(conflict.getByTestId("changed-by")).not.toBeEmpty();
    await expect(card.getByRole("button", { name: /^Approve/ })).toHaveCount(0);
    await expect(card.getByRole("button", { name: /Keep the record as it is/ })).toBeVisible();
    await fitsWidth(page);
    await accessible(page);
    await page.screenshot({ path: `output/screenshots/triage-${size.name}-conflict.png`, fullPage: true });
    await page.context().close();
  }
});

test("an item escalated while no channel existed is listed, and a channel added later receives it, marked late", async ({ browser, request }) => {
  test.setTimeout(180_000);
  let hook: WebhookReceiver | null = null;
  try {
    hook = await startWebhookReceiver({ secret: SECRET });
    // No active channel from here on.
    const { channels } = (await (await request.get("/api/escalation-channels", { headers: AUTH })).json()) as { channels: { id: string; active: boolean }[] };
    for (const c of channels.filter((c) => c.active)) expect((await request.delete(`/api/escalation-channels/${c.id}`, { headers: AUTH })).status()).toBe(200);

    const { itemId } = await uncertainOrder(request, `conv-triage-late-${Date.now()}`, `o-late-${Date.now()}`, "high");
    // The high-risk deadline is 20 s on the e2e server: nobody decides, it escalates — to nobody.
    await expect
      .poll(
        async () =>
          ((await (await request.get(`/api/review-items?status=escalated`, { headers: AUTH })).json()) as { reviewItems: { id: string }[] }).reviewItems.some(
            (r) => r.id === itemId,
          ),
        { timeout: 60_000 },
      )
      .toBe(true);

    const page = await (await browser.newContext()).newPage();
    await tokenSignIn(page, "/console/escalations");
    const undelivered = page.locator(`[data-testid="undelivered-item"][data-review-item-id="${itemId}"]`);
    await expect(undelivered).toBeVisible({ timeout: 20_000 });
    await expect(undelivered).toContainText("Not delivered to any channel");
    await accessible(page);
    await page.screenshot({ path: "output/screenshots/triage-undelivered.png", fullPage: true });

    // A channel added now receives it, marked late.
    const form = page.getByTestId("channel-form");
    await form.getByLabel("Name").fill("Late pager");
    await form.getByLabel("URL").fill(hook.url);
    await form.getByLabel(/Shared secret/).fill(SECRET);
    await form.getByRole("button", { name: "Add channel" }).click();
    await expect
      .poll(() => hook!.requests.filter((r) => (r.body as { reviewItem?: { id?: string } } | null)?.reviewItem?.id === itemId).length, { timeout: 20_000 })
      .toBe(1);
    const body = hook.requests.find((r) => (r.body as { reviewItem?: { id?: string } } | null)?.reviewItem?.id === itemId)!.body as {
      late?: { channelAddedAt?: string };
      event?: string;
    };
    expect(body.event).toBe("review_item.escalated");
    expect(body.late?.channelAddedAt).toBeTruthy();
    const escalation = page.locator(`[data-testid="escalation"][data-review-item-id="${itemId}"]`);
    await expect(escalation.getByTestId("late")).toBeVisible({ timeout: 20_000 });
    await expect(undelivered).toHaveCount(0);
    await expect(page.getByTestId("channel").filter({ hasText: "Late pager" }).getByTestId("channel-health")).toHaveText("Healthy", { timeout: 20_000 });
    await accessible(page);
    await page.screenshot({ path: "output/screenshots/triage-late-delivery.png", fullPage: true });
    await page.context().close();
  } finally {
    await hook?.close();
  }
});
