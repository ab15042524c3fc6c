import { createHmac } from "node:crypto";
import { expect, test, type APIRequestContext, type Browser, type Page } from "@playwright/test";
import { verifySignature } from "../lib/escalation/signature";
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from "../lib/escalation/webhook-receiver";
import { E2E_BASE_URL } from "./env";

/**
 * Escalation, end to end against the real `npm start` server: this test runs its own webhook receivers
 * (node:http on free ports in the test process, recording every request). An operator adds a signed webhook
 * channel pointing at one through /console/escalations (a bad URL is refused with the field named first), and
 * a second channel at a receiver that keeps failing. A real review item is made through the demo world (an
 * agent orders a lamp, it is confirmed and placed, then stopped: an approval of the order's cancellation
 * waits for a person) and left alone past its deadline — the server runs with a short high-risk review
 * deadline (STOPLINE_REVIEW_DEADLINE_HIGH_MS in playwright.config.ts). The receiver gets the escalation with
 * a valid HMAC signature, the page's log shows it delivered (and the failing channel retrying); the operator
 * decides the item in the review queue; the receiver gets the signed close-out and the log shows it. Support
 * reads the log without any channel control; a user is told the page is not for them.
 * Screenshots of every state: output/screenshots/escalation-*.png.
 */

const TOKEN = process.env.STOPLINE_BOOTSTRAP_TOKEN ?? "";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const PASSWORD = (role: string) => process.env.STOPLINE_DEMO_PASSWORD || `stopline-${role}-demo`;
const SECRET = "whsec_e2e_escalation_receiver_0123456789";
const FLAKY_SECRET = "whsec_e2e_escalation_flaky_0123456789";
const shot = (page: Page, name: string) => page.screenshot({ path: `output/screenshots/escalation-${name}.png`, fullPage: true });

let hook: WebhookReceiver;
let flaky: WebhookReceiver;
let item: { id: string; taskId: string; deadline: string } | null = null;

// Generous: these machines run several builds and servers at once.
test.describe.configure({ mode: "serial", timeout: 90_000 });

test.beforeAll(async () => {
  hook = await startWebhookReceiver({ secret: SECRET });
  flaky = await startWebhookReceiver({ secret: FLAKY_SECRET, path: "/flaky" });
  flaky.failWith(...Array<number>(100).fill(503)); // never answers 2xx
});
test.afterAll(async () => {
  await hook?.close();
  await flaky?.close();
});

async function signIn(browser: Browser, who: "user" | "operator" | "support") {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(`${who}@stopline.local`);
  await page.getByLabel("Password").fill(PASSWORD(who));
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(who === "user" ? /\/chat$/ : /\/console$/, { timeout: 20_000 }); // the first sign-in on a fresh server is slow
  return page;
}

/** The requests a receiver got about one review item, in arrival order. */
const about = (r: WebhookReceiver, reviewItemId: string) => r.requests.filter((q) => q.body?.reviewItem?.id === reviewItemId);

/** Checks the Stopline-Signature of a received request twice: with the project's verifier, and recomputed here. */
function expectSigned(request: ReceivedRequest, secret: string) {
  const header = request.headers["stopline-signature"];
  expect(typeof header).toBe("string");
  expect(verifySignature(secret, header as string, request.raw, 300)).toBe(true);
  const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header as string) ?? [];
  expect(v1).toBe(createHmac("sha256", secret).update(`${t}.${request.raw}`).digest("hex"));
  expect(Math.abs(Date.now() / 1000 - Number(t))).toBeLessThan(300);
  expect(verifySignature("whsec_not_the_secret_000000", header as string, request.raw, 300)).toBe(false);
}

/** A lamp is ordered by an agent and confirmed; once the order is placed (and the task completed), the agent requests its reversal: it waits for a person. */
async function reviewItemFromTheDemoWorld(request: APIRequestContext) {
  const tokenRes = await request.post("/api/tokens", { headers: AUTH, data: { name: `escalation-e2e-agent-${Date.now()}`, role: "agent" } });
  expect(tokenRes.status(), await tokenRes.text()).toBe(201);
  const AGENT = { Authorization: `Bearer ${((await tokenRes.json()) as { token: string }).token}` };
  const detail = async (taskId: string) => {
    const res = await request.get(`/api/tasks/${taskId}`, { headers: AUTH });
    expect(res.status()).toBe(200);
    return (await res.json()) as {
      stage: string;
      workItems: { status: string }[];
      sideEffects: { outcome: string }[];
      reviewItems: { id: string; kind: string; status: string; deadline: string }[];
    };
  };
  const turn = await request.post(`/api/conversations/conv-escalation-${Date.now()}/messages`, { headers: AGENT, data: { text: "order a lamp" } });
  expect(turn.status(), await turn.text()).toBe(201);
  const { taskId, proposal } = (await turn.json()) as { taskId: string; proposal: { version: number } };
  const confirm = await request.post(`/api/tasks/${taskId}/proposal/confirm`, { headers: AGENT, data: { proposalVersion: proposal.version } });
  expect(confirm.status(), await confirm.text()).toBe(201);
  await expect.poll(async () => (await detail(taskId)).sideEffects.filter((s) => s.outcome === "committed").length, { timeout: 30_000 }).toBeGreaterThan(0);
  await expect.poll(async () => (await detail(taskId)).stage, { timeout: 30_000 }).toBe("completed");
  const reversal = await request.post(`/api/tasks/${taskId}/reversal`, { headers: AGENT, data: { reason: "the customer changed their mind" } });
  expect(reversal.status(), await reversal.text()).toBe(200);
  await expect
    .poll(async () => (await detail(taskId)).reviewItems.filter((r) => r.kind === "approve_compensation").length, { timeout: 30_000 })
    .toBeGreaterThan(0);
  const review = (await detail(taskId)).reviewItems.find((r) => r.kind === "approve_compensation")!;
  return { id: review.id, taskId, deadline: review.deadline };
}

test("signed out → the sign-in gate; a user → not for their role", async ({ page, browser }) => {
  await page.goto("/console/escalations");
  await expect(page.getByRole("heading", { level: 1, name: "Sign in to the console" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Add channel" })).toHaveCount(0);
  await shot(page, "signed-out");

  const user = await signIn(browser, "user");
  await user.goto("/console/escalations");
  await expect(user.getByRole("heading", { level: 1, name: "Escalations are not for your role" })).toBeVisible();
  await expect(user.getByTestId("not-for-role")).toContainText("user@stopline.local");
  await expect(user.getByRole("button", { name: "Add channel" })).toHaveCount(0);
  expect((await user.request.get("/api/escalations")).status()).toBe(403);
  await shot(user, "user-not-for-role");
  await user.context().close();
});

test("operator: a bad URL or a missing secret is refused with the field named; a signed webhook channel is added through the page", async ({ browser }) => {
  const page = await signIn(browser, "operator");
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Escalations" }).click();
  await expect(page).toHaveURL(/\/console\/escalations$/);
  await expect(page.getByRole("heading", { level: 1, name: "Escalations" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Escalations" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByText("No channel yet.")).toBeVisible();
  await expect(page.getByText(/Nothing has been escalated\.|No channel has received an escalation yet\./).or(page.getByTestId("delivery-log"))).toBeVisible(); // earlier specs may have escalated items already
  await shot(page, "empty");

  const form = page.getByTestId("channel-form");
  await form.getByLabel("Name").fill("On-call webhook");
  await form.getByLabel("URL").fill("hooks dot example");
  await form.getByLabel(/Shared secret/).fill(SECRET);
  await form.getByRole("button", { name: "Add channel" }).click();
  await expect(form.getByTestId("field-error-url")).toContainText("http(s) URL");
  await expect(form.getByLabel("URL")).toHaveAttribute("aria-invalid", "true");
  await expect(form.getByLabel("URL")).toBeFocused();
  await expect(page.getByText("No channel yet.")).toBeVisible(); // nothing was written
  await shot(page, "field-error-url");

  await form.getByLabel("URL").fill(hook.url);
  await expect(form.getByTestId("field-error-url")).toHaveCount(0);
  await form.getByLabel(/Shared secret/).fill("");
  await form.getByRole("button", { name: "Add channel" }).click();
  await expect(form.getByTestId("field-error-secret")).toContainText("needs a secret");
  await expect(form.getByLabel(/Shared secret/)).toBeFocused();
  await expect(page.getByText("No channel yet.")).toBeVisible();

  // Keyboard only from here: type the secret, submit with Enter.
  await form.getByLabel(/Shared secret/).fill(SECRET);
  await form.getByLabel(/Shared secret/).press("Enter");
  const channel = page.getByTestId("channel").filter({ hasText: "On-call webhook" });
  await expect(channel).toBeVisible();
  // A new channel has no delivery yet: its health says so (never a green "Active" it has not earned).
  // (An item escalated earlier and still open may already have been sent to it, marked late: then it is Healthy.)
  await expect(channel.getByTestId("channel-health")).toHaveText(/^(Not used yet|Healthy)$/);
  await expect(channel).toContainText("Signed (HMAC-SHA256)");
  await expect(channel).toContainText(hook.url);
  // (Items escalated earlier and still open are sent to a new channel at once, marked late: their deliveries may
  // already have replaced this announcement.)
  await expect(page.getByTestId("announcer")).toContainText(/Channel “On-call webhook” added|Escalation to On-call webhook/);
  await expect(form.getByLabel("Name")).toHaveValue("");
  expect(await page.content()).not.toContain(SECRET); // the secret is never shown back

  // A second channel whose receiver keeps failing: its deliveries are retried, then given up.
  await form.getByLabel("Name").fill("Flaky receiver");
  await form.getByLabel("URL").fill(flaky.url);
  await form.getByRole("button", { name: "Generate" }).click();
  await expect(form.getByLabel(/Shared secret/)).toHaveValue(/^whsec_[0-9a-f]{64}$/);
  await form.getByLabel(/Shared secret/).fill(FLAKY_SECRET);
  await form.getByRole("button", { name: "Add channel" }).click();
  await expect(page.getByTestId("channel").filter({ hasText: "Flaky receiver" }).getByTestId("channel-health")).toHaveText(/^(Not used yet|Failing)$/);
  await shot(page, "channels");

  // The API agrees with the page.
  const listed = (await (await page.request.get("/api/escalation-channels")).json()) as { channels: { name: string; active: boolean; hasSecret: boolean }[] };
  expect(
    listed.channels
      .filter((c) => c.active)
      .map((c) => c.name)
      .sort(),
  ).toEqual(["Flaky receiver", "On-call webhook"]);
  await page.context().close();
});

test("operator: the loading and error states of the log", async ({ browser }) => {
  const page = await signIn(browser, "operator");
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/api/escalations?*", async (route) => {
    await held;
    await route.continue();
  });
  await page.goto("/console/escalations");
  await expect(page.getByText("Loading the delivery log…")).toBeVisible();
  await shot(page, "loading");
  release();
  await expect(page.getByText(/Nothing has been escalated\.|No channel has received an escalation yet\./).or(page.getByTestId("delivery-log"))).toBeVisible();
  await page.unroute("**/api/escalations?*");

  await page.route("**/api/escalations?*", (route) =>
    route.fulfill({
      status: 503,
      contentType: "application/json",
      body: JSON.stringify({ error: { code: "unavailable", message: "the database is not answering" } }),
    }),
  );
  await page.reload();
  const error = page.getByRole("alert").filter({ hasText: "Could not load the delivery log" });
  await expect(error).toContainText("The database is not answering.", { timeout: 15_000 });
  await shot(page, "error");
  await page.unroute("**/api/escalations?*");
  await page.getByRole("button", { name: "Try again" }).click();
  await expect(error).toHaveCount(0);
  await expect(page.getByText(/Nothing has been escalated\.|No channel has received an escalation yet\./).or(page.getByTestId("delivery-log"))).toBeVisible();
  await page.context().close();
});

test("operator: an item past its deadline escalates to the test's receiver, signed; resolving it delivers the close-out", async ({ browser, request }) => {
  test.setTimeout(180_000);
  const page = await signIn(browser, "operator");
  await page.goto("/console/escalations");
  await expect(page.getByRole("heading", { level: 1, name: "Escalations" })).toBeVisible();

  item = await reviewItemFromTheDemoWorld(request);
  const deadline = Date.parse(item.deadline);
  expect(deadline - Date.now(), "the e2e server runs with a short high-risk review deadline").toBeLessThan(60_000);

  // Nobody decides: past the deadline, the receiver gets the escalation.
  await expect.poll(() => about(hook, item!.id).length, { timeout: 90_000, intervals: [250] }).toBeGreaterThan(0);
  const [escalation] = about(hook, item.id);
  expect(escalation.at).toBeGreaterThanOrEqual(deadline);
  expect(escalation.headers["content-type"]).toBe("application/json");
  expect(escalation.headers["stopline-event"]).toBe("review_item.escalated");
  expectSigned(escalation, SECRET);
  expect(escalation.verified).toBe(true);
  expect(escalation.body).toMatchObject({
    event: "review_item.escalated",
    trigger: "deadline_passed",
    reviewItem: { id: item.id, kind: "approve_compensation", status: "escalated", deadline: item.deadline },
    task: { id: item.taskId },
    reason: expect.stringMatching(/^deadline .* passed without a decision$/),
    links: { reviewItem: expect.stringContaining(`/console/review?item=${item.id}`), task: expect.stringContaining(`/console/tasks/${item.taskId}`) },
  });

  // The page shows it delivered (live: nobody reloads), and the failing channel retrying.
  const card = page.locator(`[data-testid="escalation"][data-review-item-id="${item.id}"]`);
  await expect(card).toBeVisible({ timeout: 15_000 });
  await expect(card.getByTestId("trigger")).toHaveText("Deadline passed");
  await expect(card.getByTestId("why")).toContainText("Nobody decided before the review deadline");
  await expect(card.getByTestId("task-link")).toHaveAttribute("href", `/console/tasks/${item.taskId}`);
  const hookRow = (kind: string) =>
    card
      .getByTestId("delivery")
      .filter({ hasText: "On-call webhook" })
      .and(card.locator(`[data-kind="${kind}"]`));
  const flakyRow = (kind: string) =>
    card
      .getByTestId("delivery")
      .filter({ hasText: "Flaky receiver" })
      .and(card.locator(`[data-kind="${kind}"]`));
  await expect(hookRow("escalated")).toHaveAttribute("data-state", "delivered", { timeout: 15_000 });
  await expect(hookRow("escalated")).toContainText("HTTP 200");
  await expect(flakyRow("escalated")).toHaveAttribute("data-state", "retrying", { timeout: 15_000 });
  await expect(flakyRow("escalated").getByTestId("last-error")).toContainText("HTTP 503");
  await expect(flakyRow("escalated")).toContainText("Next attempt");
  await expect(page.getByTestId("announcer")).toContainText("delivered");
  await shot(page, "escalated");
  expect(about(flaky, item.id).every((r) => r.verified)).toBe(true);

  // The API's log says the same.
  const log = (await (await page.request.get(`/api/escalations?reviewItemId=${item.id}`)).json()) as {
    deliveries: { id: string; kind: string; status: string; channel: { name: string } }[];
  };
  const logged = log.deliveries.find((d) => d.kind === "escalated" && d.channel.name === "On-call webhook")!;
  expect(logged.status).toBe("delivered");
  expect(escalation.deliveryId).toBe(logged.id);

  // The operator decides it in the review queue, reached from the log.
  await card.getByTestId("review-link").click();
  await expect(page).toHaveURL(new RegExp(`/console/review\\?item=${item.id}$`));
  const review = page.locator(`li[id="${item.id}"]`).getByTestId("review-item");
  await expect(review).toBeVisible();
  // The linked item is marked, in view, and has the focus (a keyboard user continues from it).
  await expect(page.locator(`li[id="${item.id}"]`)).toHaveAttribute("data-linked", "");
  await expect(page.locator(`li[id="${item.id}"]`)).toBeFocused();
  await expect(review).toBeInViewport();
  await expect(review.getByTestId("escalated")).toBeVisible();
  await shot(page, "review-queue-escalated");
  await review.getByLabel(/Reason/).fill("the customer asked to cancel; approved after the escalation");
  await review.getByRole("button", { name: /^Approve/ }).click();
  await expect(page.getByTestId("announcer")).toContainText("Compensation executed", { timeout: 30_000 });

  // The close-out reaches the receiver, signed, after the escalation.
  await expect.poll(() => about(hook, item!.id).length, { timeout: 30_000, intervals: [250] }).toBe(2);
  const closeOut = about(hook, item.id)[1];
  expect(closeOut.headers["stopline-event"]).toBe("review_item.closed_out");
  expectSigned(closeOut, SECRET);
  expect(closeOut.body).toMatchObject({
    event: "review_item.closed_out",
    trigger: "deadline_passed",
    reviewItem: { id: item.id, status: "resolved" },
    task: { id: item.taskId },
    closedOut: { status: "resolved", decidedBy: "operator:operator@stopline.local" },
  });
  expect(Date.parse(closeOut.body.closedOut.at)).toBeGreaterThanOrEqual(Date.parse(closeOut.body.escalatedAt));

  // Back on the escalations page: closed, the close-out delivered; the failing channel's close-out waits behind its escalation.
  await page.goto("/console/escalations");
  await expect(card.getByTestId("closed")).toHaveText("Closed: resolved");
  await expect(hookRow("closed_out")).toHaveAttribute("data-state", "delivered", { timeout: 15_000 });
  await expect(flakyRow("closed_out")).toHaveAttribute("data-state", /waiting|retrying|failed/);
  await expect(card.getByTestId("review-link")).toHaveCount(0);
  await expect(card).toContainText("operator:operator@stopline.local");
  await shot(page, "closed-out");
  await page.context().close();
});

test("support: reads the delivery log; no channel controls, and the channel routes refuse", async ({ browser, request }) => {
  expect(item, "the escalation test ran first").not.toBeNull();
  const page = await signIn(browser, "support");
  await page.goto("/console/escalations");
  const card = page.locator(`[data-testid="escalation"][data-review-item-id="${item!.id}"]`);
  await expect(card).toBeVisible();
  await expect(card.getByTestId("delivery").filter({ hasText: "On-call webhook" }).first()).toHaveAttribute("data-state", "delivered");
  await expect(page.getByTestId("channels-read-only")).toBeVisible();
  // Support reads the channels and their health (the README says support reads escalations; the API agrees).
  await expect(page.getByTestId("channel").filter({ hasText: "On-call webhook" }).getByTestId("channel-health")).toHaveText("Healthy");
  await expect(page.getByTestId("channel-form")).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^(Add channel|Remove|Generate)/ })).toHaveCount(0);
  await shot(page, "support");

  const SAME_ORIGIN = { origin: E2E_BASE_URL };
  expect((await page.request.get("/api/escalations")).status()).toBe(200);
  const readable = await page.request.get("/api/escalation-channels");
  expect(readable.status()).toBe(200);
  expect(await readable.text()).not.toContain(SECRET);
  expect(
    (
      await page.request.post("/api/escalation-channels", { data: { name: "x", kind: "webhook", url: hook.url, secret: SECRET }, headers: SAME_ORIGIN })
    ).status(),
  ).toBe(403);
  const channels = (await (await request.get("/api/escalation-channels", { headers: AUTH })).json()) as { channels: { id: string }[] };
  expect((await page.request.delete(`/api/escalation-channels/${channels.channels[0].id}`, { headers: SAME_ORIGIN })).status()).toBe(403);
  await page.context().close();
});

test("operator: removing a channel asks first (Escape keeps it); a removed channel receives nothing more", async ({ browser }) => {
  const page = await signIn(browser, "operator");
  await page.goto("/console/escalations");
  const flakyChannel = page.getByTestId("channel").filter({ hasText: "Flaky receiver" });
  const remove = flakyChannel.getByRole("button", { name: "Remove Flaky receiver" });
  await expect(remove).toBeVisible({ timeout: 20_000 });
  await remove.focus();
  await page.keyboard.press("Enter");
  const confirm = flakyChannel.getByRole("group", { name: "Confirm removing Flaky receiver" });
  await expect(confirm).toBeVisible();
  await expect(confirm.getByRole("button", { name: "Remove channel" })).toBeFocused();
  await shot(page, "remove-confirm");
  await page.keyboard.press("Escape");
  await expect(confirm).toHaveCount(0);
  await expect(remove).toBeFocused();
  // Every delivery to it failed: it is "Failing" with its record (failures in a row, never delivered) — not green.
  await expect(flakyChannel.getByTestId("channel-health")).toHaveText("Failing");
  await expect(flakyChannel.getByTestId("channel-health-sentence")).toContainText(/attempts failed · never delivered/);
  await expect(page.getByTestId("nav-escalation-count")).toContainText(/failing/);

  for (const name of ["Flaky receiver", "On-call webhook"]) {
    const row = page.getByTestId("channel").filter({ hasText: name });
    await row.getByRole("button", { name: `Remove ${name}` }).click();
    await row.getByRole("button", { name: "Remove channel" }).click();
    await expect(row).toContainText("Removed");
    await expect(row).toBeFocused(); // the buttons are gone; the keyboard stays on the row
    // (The announcer said so too, but a delivery that failed at the same moment may already have replaced it.)
  }
  await expect(page.getByText("Every channel is removed")).toBeVisible();
  // Nothing stays pending for the removed failing channel: its deliveries ended failed (given up after their
  // attempts, or failed with the reason when the channel was removed first) — none is sent later.
  if (item) {
    const card = page.locator(`[data-testid="escalation"][data-review-item-id="${item.id}"]`);
    const flakyRows = card.getByTestId("delivery").filter({ hasText: "Flaky receiver" });
    await expect(flakyRows).toHaveCount(2);
    await expect(flakyRows.and(card.locator('[data-state="failed"]'))).toHaveCount(2, { timeout: 30_000 });
    await expect(flakyRows.first()).toContainText(/gave up after 5 attempts|the channel was deactivated before delivery/);
  }
  await shot(page, "removed");
  await page.context().close();
});
