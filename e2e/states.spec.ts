import { expect, test, type Browser, type Page, type Route } from "@playwright/test";
import { E2E_BASE_URL } from "./env";
import { demoPassword, personPage } from "./sign-in";
import { accessible, fitsWidth } from "./page-checks";

/**
 * Issue 12 §5–6, what is left of it: one set of loading / could-not-load / session-ended states on the chat, the task
 * list, a task, the review queue and the escalations (the same words, from components/state-words.ts); a session
 * that ends while the chat is open says "Your session ended — sign in again" and leads back in; Send and Stop share
 * one thumb-reachable slot at 390 px; long input shows the limit; a reopened conversation on a phone shows its latest
 * outcome and the drawer reaches the history; a person stops all their own requests from the chat's history; /audit
 * gives a user the role card and a signed-out visitor the account sign-in. Screenshots: output/screenshots/states-*.png.
 */

const TOKEN = process.env.STOPLINE_BOOTSTRAP_TOKEN ?? "";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const SAME_ORIGIN = { origin: E2E_BASE_URL };
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const SETTLED = /^(CANCELLED|PARTIALLY_CANCELLED|CANCELLATION_FAILED)$/;

const shot = (page: Page, name: string) => page.screenshot({ path: `output/screenshots/states-${name}.png`, fullPage: true });

async function tokenContext(browser: Browser, viewport: { width: number; height: number }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const signIn = await page.request.post("/api/session", { data: { token: TOKEN } });
  expect(signIn.status(), await signIn.text()).toBe(200);
  return page;
}

/** Holds every matching API answer until `release(status)`; then answers with that error. */
async function holdThenFail(page: Page, pattern: string | RegExp) {
  let release: (status: number) => void = () => {};
  const answer = new Promise<number>((resolve) => (release = resolve));
  await page.route(pattern, async (route: Route) => {
    if (route.request().method() !== "GET") return route.continue();
    const status = await answer;
    await route.fulfill({
      status,
      json: {
        error: status === 401 ? { code: "unauthorized", message: "sign in first" } : { code: "unavailable", message: "the ledger is not reachable right now" },
      },
    });
  });
  return release;
}

test.describe.configure({ mode: "serial" });

/** Each page, what it loads, and the noun its states use. */
function pagesOf(taskId: string, conversationId: string) {
  return [
    { name: "chat", path: `/chat/${conversationId}`, api: /\/api\/tasks\?conversationId=/, noun: "the conversation" },
    { name: "task-list", path: "/console", api: /\/api\/tasks\?limit=/, noun: "the task list" },
    { name: "task", path: `/console/tasks/${taskId}`, api: new RegExp(`/api/tasks/${taskId}$`), noun: "the task" },
    { name: "review", path: "/console/review", api: /\/api\/review-items(\?|$)/, noun: "the review queue" },
    { name: "escalations", path: "/console/escalations", api: /\/api\/escalations(\?|$)/, noun: "the delivery log" },
  ];
}

for (const size of [
  { name: "desktop", ...DESKTOP },
  { name: "phone", ...PHONE },
] as const) {
  test(`${size.name}: chat, task list, task, review and escalations load, fail and lose their session with one set of states and words`, async ({
    browser,
    request,
  }) => {
    test.setTimeout(180_000);
    const conversationId = `conv-states-${size.name}-${Date.now()}`;
    const created = await request.post("/api/tasks", { headers: AUTH, data: { title: "A task whose pages fail on purpose", conversationId } });
    expect(created.status()).toBe(201);
    const taskId = ((await created.json()) as { id: string }).id;
    const page = await tokenContext(browser, { width: size.width, height: size.height });

    for (const p of pagesOf(taskId, conversationId)) {
      // Loading: the first answer is held — the page says what it is loading, in the shared words.
      let release = await holdThenFail(page, p.api);
      await page.goto(p.path);
      const loading = page.getByTestId("state-loading").filter({ hasText: `Loading ${p.noun}…` });
      await expect(loading).toBeAttached({ timeout: 15_000 });
      await expect(loading.getByRole("status")).toHaveText(`Loading ${p.noun}…`);
      await shot(page, `${size.name}-${p.name}-loading`);

      // Could not load: the heading names what, the server's own sentence follows, and "Try again" is offered.
      release(503);
      const error = page.getByTestId("state-error");
      await expect(error.getByRole("heading", { name: `Could not load ${p.noun}` })).toBeVisible({ timeout: 15_000 });
      await expect(error.getByRole("alert")).toContainText("The ledger is not reachable right now.");
      await expect(error.getByRole("button", { name: "Try again" })).toBeVisible();
      await fitsWidth(page);
      await accessible(page);
      await shot(page, `${size.name}-${p.name}-error`);

      // The session ended (401): not a raw refusal — the one session-ended state, with the way back in as a link.
      await page.unroute(p.api);
      release = await holdThenFail(page, p.api);
      release(401);
      await page.goto(p.path);
      const ended = page.getByTestId("session-ended").filter({ has: page.getByRole("heading") });
      await expect(ended.getByRole("heading", { name: "Your session ended — sign in again" })).toBeVisible({ timeout: 15_000 });
      await expect(ended.getByRole("link", { name: "Sign in again" })).toHaveAttribute("href", p.path);
      await expect(page.getByText("sign in first")).toHaveCount(0);
      await fitsWidth(page);
      await accessible(page);
      await shot(page, `${size.name}-${p.name}-session-ended`);
      await page.unroute(p.api);
    }
    await page.context().close();
  });
}

test("chat: a session that ends while the chat is open — the next message leads to 'Your session ended — sign in again', and the link leads back in", async ({
  browser,
}) => {
  test.setTimeout(180_000); // a Stop, its cleanup and verification on 2 cores under the whole suite: 90 s was too little once
  const page = await personPage(browser, "user", PHONE);
  await expect(page.getByTestId("chat-empty")).toBeVisible();
  // Signed out elsewhere: the cookies are gone, the page is still open.
  await page.context().clearCookies();
  const box = page.getByRole("textbox", { name: "Message to the agent" });
  await box.fill("order two chairs");
  await box.press("Enter");
  const ended = page.getByTestId("session-ended").filter({ has: page.getByRole("heading") });
  await expect(ended.getByRole("heading", { name: "Your session ended — sign in again" })).toBeVisible({ timeout: 15_000 });
  await expect(page.getByText(/The message was not sent/)).toHaveCount(0);
  await fitsWidth(page);
  await accessible(page);
  await shot(page, "phone-chat-session-ended-live");
  await ended.getByRole("link", { name: "Sign in again" }).click();
  // The chat's own sign-in (account first), and back to the chat after signing in.
  await expect(page.getByTestId("entry-sign-in")).toBeVisible();
  await page.getByLabel("Email").fill("user@stopline.local");
  await page.getByLabel("Password").fill(demoPassword("user"));
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("textbox", { name: "Message to the agent" })).toBeVisible({ timeout: 20_000 });
  await page.context().close();
});

test("phone: Send and Stop share one slot at the composer's bottom right (44 px); a message typed meanwhile can still be sent; the limit shows", async ({
  browser,
  request,
}) => {
  test.setTimeout(180_000); // a Stop, its cleanup and verification on 2 cores under the whole suite: 90 s was too little once
  const page = await personPage(browser, "user", PHONE);
  const slot = page.getByTestId("composer-slot");
  await expect(slot).toHaveAttribute("data-holds", "send");
  const sendBox = (await page.getByTestId("send-button").boundingBox())!;
  expect(sendBox.height).toBeGreaterThanOrEqual(44);
  expect(sendBox.width).toBeGreaterThanOrEqual(44);
  // Bottom right, in thumb reach: its right edge near the window's, its bottom in the lowest fifth of the screen.
  expect(PHONE.width - (sendBox.x + sendBox.width)).toBeLessThanOrEqual(24);
  expect(sendBox.y + sendBox.height).toBeGreaterThan(PHONE.height * 0.8);

  const box = page.getByRole("textbox", { name: "Message to the agent" });
  await box.fill("export a report of 9000 rows");
  await box.press("Enter");
  // While the agent works, Stop holds the very place Send had.
  await expect(slot).toHaveAttribute("data-holds", "stop", { timeout: 15_000 });
  const stop = page.getByTestId("stop-button");
  await expect(stop).not.toHaveAttribute("aria-disabled", "true", { timeout: 15_000 });
  const stopBox = (await stop.boundingBox())!;
  for (const k of ["x", "y", "width", "height"] as const) expect(Math.abs(stopBox[k] - sendBox[k]), `Stop's ${k}`).toBeLessThanOrEqual(1);
  await expect(page.getByTestId("send-button")).toHaveCount(0);
  await fitsWidth(page);
  await accessible(page);
  await shot(page, "phone-composer-stop-in-slot");

  // Something typed meanwhile: Send steps aside; Stop does not move.
  await box.fill("order two chairs");
  await expect(page.getByTestId("send-button")).toBeVisible();
  const stillThere = (await stop.boundingBox())!;
  expect(Math.abs(stillThere.x - stopBox.x)).toBeLessThanOrEqual(1);
  await fitsWidth(page);
  await shot(page, "phone-composer-send-beside-stop");
  await box.fill("");

  // Stop: "Stopping…" in the same place until the Stop settled; then Send is back.
  await stop.click();
  await expect(page.getByTestId("stop-label")).toHaveText("Stopping…", { timeout: 1_000 });
  const stoppingBox = (await stop.boundingBox())!;
  expect(Math.abs(stoppingBox.y - stopBox.y)).toBeLessThanOrEqual(1);
  const taskId = (await page.getByTestId("turn").last().getAttribute("data-task-id"))!;
  await expect
    .poll(async () => ((await (await request.get(`/api/tasks/${taskId}/cancellation`, { headers: AUTH })).json()) as { status?: string }).status ?? "", {
      timeout: 30_000,
    })
    .toMatch(SETTLED);
  await expect(slot).toHaveAttribute("data-holds", "send", { timeout: 20_000 });

  // Long input is never cut silently: the count and the excess show, Send is off; the API's 400 names the limit.
  await box.fill("x".repeat(2_001));
  await expect(page.getByTestId("composer-limit")).toHaveText("2,001 / 2,000 characters — 1 too many: shorten the message to send it (nothing is cut)");
  await expect(page.getByTestId("send-button")).toBeDisabled();
  await expect(box).toHaveAttribute("aria-invalid", "true");
  await fitsWidth(page);
  await shot(page, "phone-composer-limit");
  const tooLong = await page.request.post(`/api/conversations/conv-too-long-${Date.now()}/messages`, {
    data: { text: "x".repeat(2_001) },
    headers: SAME_ORIGIN,
  });
  expect(tooLong.status()).toBe(400);
  expect(await tooLong.text()).toMatch(/2000|2,000/);
  await page.context().close();
});

test("phone: a reopened conversation shows its latest outcome, not its top; the drawer reaches the history", async ({ browser, request }) => {
  test.setTimeout(180_000); // a Stop, its cleanup and verification on 2 cores under the whole suite: 90 s was too little once
  const conversationId = `conv-reopen-phone-${Date.now()}`;
  const other = `conv-reopen-other-${Date.now()}`;
  const say = async (conversation: string, text: string) => {
    const r = await request.post(`/api/conversations/${conversation}/messages`, { headers: AUTH, data: { text } });
    expect(r.status(), await r.text()).toBe(201);
    return ((await r.json()) as { taskId: string }).taskId;
  };
  await say(other, "order a lamp");
  // A long conversation: three proposals, then an export stopped — its summary is the latest outcome.
  for (const text of ["order two chairs", "order a lamp", "order two chairs and a lamp"]) await say(conversationId, text);
  const last = await say(conversationId, "export a report of 9000 rows");
  expect((await request.post(`/api/tasks/${last}/cancel`, { headers: AUTH, data: { reason: "the e2e test stops it" } })).status()).toBe(202);
  await expect
    .poll(async () => ((await (await request.get(`/api/tasks/${last}/cancellation`, { headers: AUTH })).json()) as { status?: string }).status ?? "", {
      timeout: 30_000,
    })
    .toMatch(SETTLED);

  const page = await tokenContext(browser, PHONE);
  await page.goto(`/chat/${conversationId}`);
  const summary = page.locator(`[data-testid="turn"][data-task-id="${last}"]`).getByTestId("stop-summary");
  await expect(summary).toBeVisible({ timeout: 20_000 });
  // Scrolled down to it, and not hidden under the composer.
  await expect.poll(() => page.evaluate(() => window.scrollY), { timeout: 10_000 }).toBeGreaterThan(0);
  await expect(summary).toBeInViewport();
  const composerTop = (await page.getByTestId("composer-slot").boundingBox())!.y;
  const summaryBox = (await summary.boundingBox())!;
  expect(summaryBox.y, "the summary starts above the composer").toBeLessThan(composerTop);
  await fitsWidth(page);
  await accessible(page);
  await page.screenshot({ path: "output/screenshots/states-phone-reopened.png" });

  // The drawer: the history is one tap away, and leads to another conversation.
  const drawer = page.getByTestId("conversations-drawer");
  await drawer.evaluate((el) => el.scrollIntoView({ block: "start" }));
  await drawer.locator("summary").click();
  const link = drawer.locator(`a[href="/chat/${other}"]`);
  await expect(link).toBeVisible({ timeout: 15_000 });
  await expect(drawer.locator(`a[href="/chat/${conversationId}"]`)).toHaveAttribute("aria-current", "page");
  await fitsWidth(page);
  await accessible(page);
  await page.screenshot({ path: "output/screenshots/states-phone-drawer.png" });
  await link.click();
  await expect(page).toHaveURL(new RegExp(`/chat/${other}$`));
  await expect(page.getByTestId("turn")).toHaveCount(1, { timeout: 15_000 });
  await page.context().close();
});

test("chat: a person stops all their own requests from the history drawer — every conversation of theirs, nobody else's; support gets no such control", async ({
  browser,
  request,
}) => {
  test.setTimeout(180_000); // a Stop, its cleanup and verification on 2 cores under the whole suite: 90 s was too little once
  const page = await personPage(browser, "user", PHONE);
  // Two running requests of this person, in two conversations, sent through the chat's own API as them.
  const start = async (conversation: string) => {
    const r = await page.request.post(`/api/conversations/${conversation}/messages`, { data: { text: "export a report of 9000 rows" }, headers: SAME_ORIGIN });
    expect(r.status(), await r.text()).toBe(201);
    return ((await r.json()) as { taskId: string }).taskId;
  };
  const stamp = Date.now();
  const mine = [await start(`conv-mine-a-${stamp}`), await start(`conv-mine-b-${stamp}`)];
  const ownerId = ((await (await request.get(`/api/tasks/${mine[0]}`, { headers: AUTH })).json()) as { ownerId: string }).ownerId;
  // Someone else's request, under way too.
  const theirs = (
    (await (
      await request.post("/api/tasks", {
        headers: AUTH,
        data: { title: "someone else's request", ownerId: `${ownerId}-other`, conversationId: `conv-theirs-${stamp}` },
      })
    ).json()) as { id: string }
  ).id;
  expect(
    (
      await request.post(`/api/tasks/${theirs}/work-items`, {
        headers: AUTH,
        data: { kind: "local_worker", toolName: "e2e.nobody_serves_this", mechanism: "abort_signal", intentVersion: 1 },
      })
    ).status(),
  ).toBe(201);

  await page.goto(`/chat/conv-mine-a-${stamp}`);
  const drawer = page.getByTestId("conversations-drawer");
  await drawer.locator("summary").click();
  const control = drawer.getByTestId("stop-mine");
  await control.getByRole("button", { name: "Stop all my requests…" }).click();
  await expect(control.getByText("Stop every request of yours that is still under way, in every conversation?")).toBeVisible();
  await fitsWidth(page);
  await accessible(page);
  await shot(page, "phone-stop-mine-confirm");
  await control.getByRole("button", { name: "Stop them all" }).click();
  await expect(control.getByRole("status")).toHaveText("Stopped 2 requests of yours. Each conversation shows what its Stop stopped.", { timeout: 15_000 });

  // Both of theirs were stopped as one person's Stop; the other person's request was not touched.
  for (const id of mine) {
    await expect
      .poll(async () => ((await (await request.get(`/api/tasks/${id}/cancellation`, { headers: AUTH })).json()) as { status?: string }).status ?? "", {
        timeout: 30_000,
      })
      .toMatch(SETTLED);
    expect(((await (await request.get(`/api/tasks/${id}/cancellation`, { headers: AUTH })).json()) as { scope: unknown }).scope).toEqual({
      kind: "person",
      ref: ownerId,
    });
  }
  expect(((await (await request.get(`/api/tasks/${theirs}`, { headers: AUTH })).json()) as { cancelRequestedAt: string | null }).cancelRequestedAt).toBeNull();
  // The open conversation follows its Stop from the ledger: its turn ends with the summary.
  await expect(page.locator(`[data-testid="turn"][data-task-id="${mine[0]}"]`).getByTestId("stop-summary")).toHaveAttribute("data-status", SETTLED, {
    timeout: 30_000,
  });
  // The answer stays on screen after the list has refetched (nothing of theirs under way now, so no second offer).
  await expect(control.getByRole("status")).toHaveText("Stopped 2 requests of yours. Each conversation shows what its Stop stopped.");
  await expect(control.getByRole("button", { name: "Stop all my requests…" })).toHaveCount(0);
  await fitsWidth(page);
  await shot(page, "phone-stop-mine-done");
  await page.context().close();

  // Support reads conversations and stops nothing here.
  const support = await personPage(browser, "support", DESKTOP);
  await support.goto("/chat");
  await expect(support.getByTestId("read-only-chat")).toBeVisible();
  await expect(support.getByTestId("stop-mine")).toHaveCount(0);
  await support.context().close();
});

for (const size of [
  { name: "desktop", ...DESKTOP },
  { name: "phone", ...PHONE },
] as const) {
  test(`${size.name}: /audit — signed out, the account sign-in; a user, the role card linking to their chat, not a second sign-in`, async ({ browser }) => {
    const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
    const visitor = await context.newPage();
    await visitor.goto("/audit");
    await expect(visitor.getByTestId("entry-sign-in")).toBeVisible();
    await expect(visitor.getByLabel("Email")).toBeVisible();
    await expect(visitor.getByLabel("Admin token")).toBeHidden();
    await accessible(visitor);
    await shot(visitor, `${size.name}-audit-signed-out`);
    await context.close();

    const user = await personPage(browser, "user", { width: size.width, height: size.height });
    await user.goto("/audit");
    const card = user.getByTestId("not-for-role");
    await expect(card.getByRole("heading", { level: 1, name: "The audit is not for your role" })).toBeVisible();
    await expect(card).toContainText("with the user role");
    await expect(card.getByRole("link", { name: "Open your chat" })).toHaveAttribute("href", "/chat");
    await expect(user.getByLabel("Email")).toHaveCount(0);
    await expect(user.getByLabel("Admin token")).toHaveCount(0);
    await fitsWidth(user);
    await accessible(user);
    await shot(user, `${size.name}-audit-user-role-card`);
    await card.getByRole("link", { name: "Open your chat" }).click();
    await expect(user.getByRole("textbox", { name: "Message to the agent" })).toBeVisible({ timeout: 15_000 });
    await user.context().close();
  });
}
