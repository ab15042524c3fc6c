import { expect, test, type APIRequestContext, type Locator, type Page } from "@playwright/test";

/**
 * The chat (/chat) against the real server (playwright.config.ts starts `npm start` on a fresh SQLite
 * database with the demo agent, the in-process workers, the cancellation engine and the demo services).
 * The person signs in with the admin token (the console's session, until accounts exist), talks to the
 * demo agent and presses Stop; the page must follow every child over the task's event stream and end with
 * the ledger's honest summary. Screenshots of every state go to output/screenshots/chat-*.png.
 */

const TOKEN = process.env.STOPLINE_BOOTSTRAP_TOKEN ?? "";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const SETTLED = ["CANCELLED", "PARTIALLY_CANCELLED", "CANCELLATION_FAILED"];
const STOPPED_STATUSES = ["cancelled", "cancelled_incomplete", "partial"];

const shot = (page: Page, name: string) => page.screenshot({ path: `output/screenshots/chat-${name}.png` });

/** Scrolls an element into view above the sticky message bar, then takes the screenshot. */
async function shotOf(page: Page, locator: Locator, name: string) {
  await locator.evaluate((el) => el.scrollIntoView({ block: "end" }));
  await page.evaluate(() => window.scrollBy(0, 200)); // the sticky bar covers the bottom of the viewport
  await shot(page, name);
}

async function signIn(page: Page) {
  await page.goto("/chat");
  // The admin-token form is the secondary way in, behind "Sign in with an API token instead".
  if (await page.locator('[data-testid="api-token-option"]:not([open])').count()) await page.getByText("Sign in with an API token instead").click();
  await page.getByLabel("Admin token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in with token" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Chat", exact: true })).toBeVisible();
}

async function send(page: Page, text: string) {
  const box = page.getByRole("textbox", { name: "Message to the agent" });
  await box.fill(text);
  await box.press("Enter");
  const turn = page
    .getByTestId("turn")
    .filter({ has: page.getByTestId("user-message-bubble").filter({ hasText: text }) })
    .last();
  // The message is answered by the server's agent: on a loaded machine that takes more than the default 5 s.
  await expect(turn).toBeVisible({ timeout: 20_000 });
  return turn;
}

const step = (turn: Locator, tool: string) => turn.locator(`[data-testid="step"][data-tool="${tool}"]`);

async function taskDetail(request: APIRequestContext, taskId: string) {
  const response = await request.get(`/api/tasks/${taskId}`, { headers: AUTH });
  expect(response.status()).toBe(200);
  return (await response.json()) as {
    cancelRequestedAt: string | null;
    workItems: { toolName: string; status: string; finishedAt: string | null }[];
  };
}

async function settledSummary(request: APIRequestContext, taskId: string) {
  let summary: { status: string; user_message: string } | null = null;
  await expect
    .poll(
      async () => {
        const response = await request.get(`/api/tasks/${taskId}/cancellation`, { headers: AUTH });
        summary = response.ok() ? await response.json() : null;
        return summary?.status;
      },
      { timeout: 30_000 },
    )
    .toMatch(new RegExp(`^(${SETTLED.join("|")})$`));
  return summary!;
}

test.describe.configure({ mode: "serial" });

test.beforeAll(() => {
  expect(TOKEN, "STOPLINE_BOOTSTRAP_TOKEN must be set by playwright.config.ts").not.toBe("");
});

test("GET /chat - signed out: the sign-in form, no conversation", async ({ page }) => {
  await page.goto("/chat");
  await expect(page.getByRole("heading", { level: 1, name: "Sign in to chat" })).toBeVisible();
  // Account sign-in leads; the admin-token form is the secondary "API token" option, closed until asked for.
  await expect(page.getByLabel("Email")).toBeVisible();
  await expect(page.getByLabel("Password")).toBeVisible();
  await expect(page.getByLabel("Admin token")).toBeHidden();
  await page.getByText("Sign in with an API token instead").click();
  await expect(page.getByLabel("Admin token")).toBeVisible();
  await expect(page.getByTestId("stop-button")).toHaveCount(0);
  await shot(page, "signed-out");
});

test("chat - export: Stop during the tool call, the children settle, the honest summary; then order → confirm → done: Stop has nothing to stop, Request reversal", async ({
  page,
  request,
}) => {
  test.slow(); // a long scenario against a real server

  await signIn(page);
  await expect(page.getByTestId("chat-empty")).toBeVisible();
  // Nothing to stop yet: the composer's one slot holds Send, and the hint says Stop has nothing to do.
  await expect(page.getByTestId("composer-slot")).toHaveAttribute("data-holds", "send");
  await expect(page.getByTestId("stop-button")).toHaveCount(0);
  await expect(page.getByText("Nothing to stop right now")).toBeVisible();
  await shot(page, "empty");

  // ---- export, stopped during the tool call ----
  const exportTurn = await send(page, "export a report of 3000 rows");
  await expect(page).toHaveURL(/\/chat\/[\w-]+$/);
  await expect(exportTurn.getByTestId("agent-reply")).toContainText("Exporting a report of 3000 rows.");
  await expect(step(exportTurn, "reports.export_report")).toHaveAttribute("data-status", "running", { timeout: 15_000 });
  // While it works, Stop holds the slot (Escape presses it too).
  await expect(page.getByTestId("stop-button")).not.toHaveAttribute("aria-disabled", "true");
  await expect(page.getByTestId("stop-button")).toHaveAttribute("aria-keyshortcuts", "Escape");
  // The export reports how far it got: the row says so, with a bar, live over the task's event stream.
  const exportStep = step(exportTurn, "reports.export_report");
  await expect(exportStep.getByTestId("step-detail")).toContainText(/[\d,]+ of 3,000 rows \(\d+%\)/, { timeout: 10_000 });
  await expect(exportStep.getByRole("progressbar")).toHaveAttribute("aria-valuenow", /^\d+$/);
  await shot(page, "export-running");

  const exportTaskId = (await exportTurn.getAttribute("data-task-id"))!;
  // The console's timeline shows the same progress on the running bar (same browser session: the admin token).
  const consolePage = await page.context().newPage();
  await consolePage.goto(`/console/tasks/${exportTaskId}`);
  await expect(consolePage.getByTestId("timeline-progress")).toContainText(/[\d,]+ \/ 3,000 rows/, { timeout: 10_000 });
  await consolePage.screenshot({ path: "output/screenshots/chat-export-running-console.png" });
  await consolePage.close();
  // Measured in the page: from the click to the frame after the label says "Stopping…".
  await page.evaluate(() => {
    const w = window as unknown as { __clickAt?: number; __stoppingAt?: number };
    const label = document.querySelector('[data-testid="stop-label"]')!;
    document.addEventListener("click", () => (w.__clickAt = performance.now()), { capture: true, once: true });
    new MutationObserver((_, observer) => {
      if (label.textContent !== "Stopping…") return;
      observer.disconnect();
      requestAnimationFrame(() => (w.__stoppingAt = performance.now()));
    }).observe(label, { childList: true, characterData: true, subtree: true });
  });
  await page.getByTestId("stop-button").click();
  // Optimistic: "Stopping…" at once, before the API answered.
  await expect(page.getByTestId("stop-label")).toHaveText("Stopping…", { timeout: 1_000 });
  await expect(exportTurn.getByTestId("turn-phase")).toHaveText("Stopping…", { timeout: 1_000 });
  const stoppingMs = await page.evaluate(() => {
    const w = window as unknown as { __clickAt?: number; __stoppingAt?: number };
    return (w.__stoppingAt ?? NaN) - (w.__clickAt ?? NaN);
  });
  // Reported, not asserted: a timing target in a functional test flakes on a loaded machine; the target
  // ("stopping" under 100 ms) is measured by `npm run bench:stop-ui`. The label must be there within 1 s (above).
  test.info().annotations.push({ type: "stopping on screen", description: `${stoppingMs.toFixed(1)} ms after the click` });
  expect(stoppingMs).toBeGreaterThanOrEqual(0);
  await shot(page, "stopping");

  // Each child settles: the export keeps a complete part of its rows; the reply generation is stopped.
  await expect(step(exportTurn, "reports.export_report")).toHaveAttribute("data-status", "partial", { timeout: 20_000 });
  await expect(step(exportTurn, "reports.export_report").getByTestId("step-detail")).toContainText(/Stopped — [\d,]+ complete rows? kept\./);
  const summary = exportTurn.getByTestId("stop-summary");
  await expect(summary).toHaveAttribute("data-status", new RegExp(`^(${SETTLED.join("|")})$`), { timeout: 30_000 });
  await expect(summary.getByTestId("user-message")).toContainText("Stopped new work.");
  await expect(summary.getByTestId("user-message")).toContainText("One partial result kept.");
  await expect(summary.getByTestId("summary-stopped")).toContainText(/Exporting the report — stopped; [\d,]+ rows? kept \(partial\)/);

  const detail = await taskDetail(request, exportTaskId);
  const generate = detail.workItems.find((i) => i.toolName === "inference.generate")!;
  const finishedBeforeStop = generate.status === "completed" && !!generate.finishedAt && generate.finishedAt < detail.cancelRequestedAt!;
  if (finishedBeforeStop) {
    // Honest either way: on a slow machine the short reply can finish before the Stop is recorded.
    test.info().annotations.push({ type: "note", description: "the reply generation had finished before the Stop boundary" });
    await expect(step(exportTurn, "inference.generate")).toHaveAttribute("data-status", "completed");
  } else {
    expect(STOPPED_STATUSES).toContain(generate.status);
    await expect(step(exportTurn, "inference.generate")).toHaveAttribute("data-status", generate.status);
    await expect(summary.getByTestId("summary-stopped")).toContainText("Writing the reply — stopped");
    await expect(exportTurn.getByTestId("agent-reply")).toContainText("stopped before it was finished");
  }
  // The page says what the API says: the user message is the ledger's.
  const api = await settledSummary(request, exportTaskId);
  await expect(summary.getByTestId("user-message")).toHaveText(api.user_message);
  // Settled: Send is back in the slot.
  await expect(page.getByTestId("composer-slot")).toHaveAttribute("data-holds", "send");
  await expect(page.getByTestId("announcer")).toContainText(`Stop finished: ${api.user_message}`); // aria-live
  await shotOf(page, summary, "export-stopped");

  // ---- the next turn reads what the Stop did (issue 25): the agent answers in the summary card's words ----
  const kept = /stopped; [\d,]+ rows? kept \(partial\)/.exec((await summary.getByTestId("summary-stopped").textContent()) ?? "")![0];
  const askTurn = await send(page, "did the export finish?");
  await expect(askTurn.getByTestId("agent-reply")).toContainText(`reports.export_report — ${kept}.`);
  await expect(step(askTurn, "reports.export_report")).toHaveCount(0); // it exports nothing again
  await expect(askTurn.getByTestId("turn-phase")).toHaveText("done", { timeout: 15_000 });
  await shotOf(page, askTurn, "export-asked-after-stop");

  // ---- order: the exact proposal, confirmed, completed, then Stop ----
  const orderTurn = await send(page, "order two chairs");
  const proposal = orderTurn.getByTestId("proposal");
  await expect(proposal).toBeVisible();
  await expect(proposal).toHaveAttribute("data-version", "1");
  const row = proposal.getByTestId("proposal-items").locator("tbody tr");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("chair");
  await expect(row).toContainText("2 ×");
  await expect(row).toContainText("€60.00");
  await expect(proposal.getByTestId("proposal-amount")).toHaveText("€120.00");
  await expect(orderTurn.getByTestId("turn-phase")).toHaveText("waiting for your confirmation", { timeout: 10_000 });
  await shotOf(page, proposal, "order-proposal");

  await proposal.getByRole("button", { name: "Confirm order · €120.00" }).click();
  await expect(proposal.getByTestId("proposal-confirmed")).toContainText("You confirmed version 1");
  await expect(proposal.getByRole("button", { name: /Confirm/ })).toHaveCount(0); // no second confirmation
  await expect(step(orderTurn, "shop.create_order")).toHaveAttribute("data-status", "completed", { timeout: 15_000 });
  await expect(step(orderTurn, "shop.create_order")).toContainText("took effect");
  await expect(step(orderTurn, "shop.create_order")).toContainText("2 × chair, €120.00");
  // The demo agent completes the request once its work settled: a completed request has nothing running.
  const orderTaskId = (await orderTurn.getAttribute("data-task-id"))!;
  await expect
    .poll(async () => ((await (await request.get(`/api/tasks/${orderTaskId}`, { headers: AUTH })).json()) as { stage: string }).stage, { timeout: 15_000 })
    .toBe("completed");
  await expect(orderTurn.getByTestId("turn-phase")).toHaveText("done");
  await expect(page.getByTestId("composer-slot")).toHaveAttribute("data-holds", "send");
  await shotOf(page, orderTurn.getByTestId("work-panel"), "order-completed");
  // Stop on it (a stale page, an API client) answers that nothing is running — no boundary, no review item.
  const late = await request.post(`/api/tasks/${orderTaskId}/cancel`, { headers: AUTH, data: { reason: "too late" } });
  expect(late.status()).toBe(202);
  expect(await late.json()).toMatchObject({ kind: "already_finished", message: expect.stringMatching(/^Nothing to stop: this request had already finished/) });
  expect((await request.get(`/api/tasks/${orderTaskId}/cancellation`, { headers: AUTH })).status()).toBe(404);

  // Undoing it is its own request, decided by another person.
  await orderTurn.getByTestId("request-reversal").click();
  await expect(orderTurn.getByTestId("reversal-requested")).toContainText(
    /^Reversal requested: another person decides by \d\d:\d\d UTC whether to reverse what this request did; nothing is undone before then\.$/,
  );
  await expect(orderTurn.getByTestId("request-reversal")).toHaveCount(0);
  await shotOf(page, orderTurn, "order-reversal-requested");
});

test("chat - record and email: the exact record and email are confirmed; a reversal request names the sent email as irreversible", async ({
  page,
  request,
}) => {
  await signIn(page);
  const turn = await send(page, "record customer Ada ada@example.com");
  const proposal = turn.getByTestId("proposal");
  await expect(proposal).toContainText("Record and email to confirm");
  await expect(proposal).toContainText("Ada");
  await expect(proposal).toContainText("ada@example.com");
  await expect(proposal).toContainText("Welcome");
  await expect(proposal).toContainText("Hello Ada, thank you for getting in touch.");
  await shotOf(page, proposal, "record-proposal");

  await proposal.getByRole("button", { name: "Confirm record and email" }).click();
  await expect(proposal.getByTestId("proposal-confirmed")).toBeVisible();
  await expect(step(turn, "crm.create_record")).toHaveAttribute("data-status", "completed", { timeout: 15_000 });
  await expect(step(turn, "mailer.send_email")).toHaveAttribute("data-status", "completed", { timeout: 15_000 });
  await expect(step(turn, "mailer.send_email")).toContainText("cannot be undone");

  const taskId = (await turn.getAttribute("data-task-id"))!;
  await expect
    .poll(async () => ((await (await request.get(`/api/tasks/${taskId}`, { headers: AUTH })).json()) as { stage: string }).stage, { timeout: 15_000 })
    .toBe("completed");
  await expect(turn.getByTestId("turn-phase")).toHaveText("done");
  await turn.getByTestId("request-reversal").click();
  await expect(turn.getByTestId("reversal-requested")).toContainText("Reversal requested: another person decides by");
  await expect(turn.getByTestId("reversal-requested")).toContainText("One effect cannot be undone: email");
  await shotOf(page, turn, "record-reversal-requested");
});

test("chat - a proposal that changed before the confirmation arrives is refused, with the current proposal", async ({ page, request }) => {
  await signIn(page);
  const turn = await send(page, "order two chairs");
  const proposal = turn.getByTestId("proposal");
  await expect(proposal).toHaveAttribute("data-version", "1");
  const taskId = (await turn.getAttribute("data-task-id"))!;

  // Someone changes the proposal (three chairs) while this page still shows version 1: hold the page's
  // view of the task at what it saw, so that the confirmation it sends is the stale one.
  const seen = await (await request.get(`/api/tasks/${taskId}`, { headers: AUTH })).json();
  await page.route(`**/api/tasks/${taskId}`, (route) => (route.request().method() === "GET" ? route.fulfill({ json: seen }) : route.continue()));
  const edit = await request.post(`/api/tasks/${taskId}/proposal`, { headers: AUTH, data: { items: [{ sku: "chair", quantity: 3 }], expectedVersion: 1 } });
  expect(edit.status(), await edit.text()).toBe(200);

  await proposal.getByRole("button", { name: "Confirm order · €120.00" }).click();
  const conflict = proposal.getByTestId("proposal-conflict");
  await expect(conflict).toContainText("Not confirmed: the proposal changed before your confirmation arrived.");
  await expect(conflict).toContainText("You confirmed proposal version 1, but it is now version 2");
  await expect(proposal).toHaveAttribute("data-version", "2");
  await expect(proposal.getByTestId("proposal-items").locator("tbody tr")).toContainText("3 ×");
  await expect(proposal.getByTestId("proposal-amount")).toHaveText("€180.00");
  await shotOf(page, proposal, "proposal-conflict");

  // Nothing was scheduled by the refused confirmation.
  const detail = await (await request.get(`/api/tasks/${taskId}`, { headers: AUTH })).json();
  expect(detail.workItems.filter((i: { toolName: string }) => i.toolName === "shop.create_order")).toHaveLength(0);
  await page.unroute(`**/api/tasks/${taskId}`);

  // Stop this request so it does not linger: the proposal then says nothing was ordered.
  await page.keyboard.press("Escape");
  await expect(turn.getByTestId("stop-summary")).toHaveAttribute("data-status", /^(CANCELLED|PARTIALLY_CANCELLED)$/, { timeout: 30_000 });
  await expect(proposal).toContainText("This request was stopped before you confirmed it; nothing was ordered or sent.");
});

test("chat - Stop pressed before the agent answered stops the request as soon as it exists", async ({ page }) => {
  await signIn(page);
  // Hold the agent's answer for a moment: the task exists on the server, but the page does not know it yet.
  await page.route("**/api/conversations/*/messages", async (route) => {
    const response = await route.fetch();
    await new Promise((r) => setTimeout(r, 1_500));
    await route.fulfill({ response });
  });
  const box = page.getByRole("textbox", { name: "Message to the agent" });
  await box.fill("export a report of 3000 rows");
  await box.press("Enter");
  await expect(page.getByTestId("pending-turn")).toBeVisible();
  await expect(page.getByTestId("stop-button")).not.toHaveAttribute("aria-disabled", "true");
  await page.getByTestId("stop-button").click();
  await expect(page.getByTestId("stop-label")).toHaveText("Stopping…", { timeout: 1_000 });
  await expect(page.getByTestId("pending-turn")).toContainText("this request is stopped, whether or not the agent has started on it yet");
  await shot(page, "stop-before-answer");

  const turn = page.getByTestId("turn").last();
  const summary = turn.getByTestId("stop-summary");
  await expect(summary).toHaveAttribute("data-status", new RegExp(`^(${SETTLED.join("|")})$`), { timeout: 30_000 });
  await expect(summary.getByTestId("user-message")).toContainText("Stopped new work.");
  await expect(step(turn, "reports.export_report")).toHaveAttribute("data-status", /^(cancelled|partial|cancelled_incomplete)$/);
});

test("chat - Stop pressed right after Enter, before the message reached the agent: the request is born stopped and nothing of it starts", async ({
  page,
  request,
}) => {
  await signIn(page);
  // The message waits a moment before it leaves the browser: the Stop (named by the message's turn id) gets there first.
  await page.route("**/api/conversations/*/messages", async (route) => {
    await new Promise((r) => setTimeout(r, 1_500));
    await route.continue();
  });
  const box = page.getByRole("textbox", { name: "Message to the agent" });
  await box.fill("export a report of 3000 rows");
  await box.press("Enter");
  await expect(page.getByTestId("pending-turn")).toBeVisible();
  await page.getByTestId("stop-button").click();
  await expect(page.getByTestId("pending-turn")).toContainText("this request is stopped, whether or not the agent has started on it yet");
  const turn = page.getByTestId("turn").last();
  await expect(turn.getByTestId("agent-reply")).toContainText("You pressed Stop before I started, so I did nothing.", { timeout: 15_000 });
  const summary = turn.getByTestId("stop-summary");
  await expect(summary).toHaveAttribute("data-status", "CANCELLED", { timeout: 30_000 });
  await expect(summary.getByTestId("user-message")).toHaveText("Stopped new work. Nothing was running.");
  const taskId = (await turn.getAttribute("data-task-id"))!;
  const detail = (await (await request.get(`/api/tasks/${taskId}`, { headers: AUTH })).json()) as { workItems: unknown[]; title: string };
  expect(detail).toMatchObject({ workItems: [], title: "export a report of 3000 rows" });
  await shotOf(page, turn, "born-stopped");
});

test("chat - Stop pressed after the agent answered, before the page shows the answer, stops that request", async ({ page }) => {
  await signIn(page);
  // The agent's answer arrives at once; the conversation's refetch that would show it is held: the page knows
  // the task id but has not drawn the request yet.
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let answered = false;
  page.on("response", (r) => {
    if (/\/api\/conversations\/[^/]+\/messages$/.test(r.url())) answered = true;
  });
  await page.route("**/api/tasks?conversationId=*", async (route) => {
    if (answered) await held;
    await route.continue();
  });
  const box = page.getByRole("textbox", { name: "Message to the agent" });
  await box.fill("export a report of 3000 rows");
  await box.press("Enter");
  await expect.poll(() => answered).toBe(true);
  await expect(page.getByTestId("pending-turn")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("stop-label")).toHaveText("Stopping…", { timeout: 1_000 });
  release(); // the route stays: every later refetch passes straight through

  const turn = page.getByTestId("turn").last();
  const summary = turn.getByTestId("stop-summary");
  await expect(summary).toHaveAttribute("data-status", new RegExp(`^(${SETTLED.join("|")})$`), { timeout: 30_000 });
  await expect(summary.getByTestId("user-message")).toContainText("Stopped new work.");
  await expect(step(turn, "reports.export_report")).toHaveAttribute("data-status", /^(cancelled|partial|cancelled_incomplete)$/);
});

test("chat - close the page mid-cancellation, reopen the conversation: what happened meanwhile", async ({ browser, request }) => {
  test.slow();
  const context = await browser.newContext({ baseURL: test.info().project.use.baseURL });
  const first = await context.newPage();
  await signIn(first);
  const turn = await send(first, "export a report of 3000 rows");
  await expect(first).toHaveURL(/\/chat\/[\w-]+$/);
  const url = first.url();
  const taskId = (await turn.getAttribute("data-task-id"))!;
  await expect(step(turn, "reports.export_report")).toHaveAttribute("data-status", "running", { timeout: 15_000 });

  // Stop by keyboard, then close the tab while the cancellation is still under way.
  await first.keyboard.press("Escape");
  await expect(first.getByTestId("stop-label")).toHaveText("Stopping…", { timeout: 1_000 });
  await shot(first, "closing-mid-cancellation");
  await first.close();

  // The server carries on without the page.
  const api = await settledSummary(request, taskId);

  // Issue 20, item 8: the card compares the ledger with the last state this browser SAVED (localStorage) — not with
  // whatever the test last read from the DOM: between that read and the tab closing, the page may see (and save) one
  // more change, and the card then rightly does not repeat it. So the expectation is derived from the snapshot itself,
  // read before the reopened page's own code runs: every step whose saved status differs from the ledger's, and the
  // request when its stage differs, must be listed — none may be missed.
  const conversationId = new URL(url).pathname.split("/").pop()!;
  const second = await context.newPage();
  await second.addInitScript((key) => {
    (window as unknown as { __seenAtOpen: string | null }).__seenAtOpen = window.localStorage.getItem(key);
  }, `stopline.chat.seen.${conversationId}`);
  await second.goto(url);
  const reopened = second.locator(`[data-testid="turn"][data-task-id="${taskId}"]`);
  await expect(reopened).toBeVisible();
  await expect(step(reopened, "reports.export_report")).toHaveAttribute("data-status", "partial");
  const saved = JSON.parse((await second.evaluate(() => (window as unknown as { __seenAtOpen: string | null }).__seenAtOpen)) ?? "null") as {
    tasks: Record<string, { stage: string; items: Record<string, string> }>;
  } | null;
  expect(saved?.tasks[taskId], "the first page saved what it showed").toBeTruthy();
  const ledger = (await (
    await request.get(`/api/tasks/${taskId}`, { headers: { Authorization: `Bearer ${process.env.STOPLINE_BOOTSTRAP_TOKEN ?? ""}` } })
  ).json()) as {
    stage: string;
    workItems: { id: string; toolName: string; status: string }[];
  };
  const before = saved!.tasks[taskId];
  const movedSteps = ledger.workItems.filter((w) => before.items[w.id] !== w.status);
  const stageMoved = before.stage !== ledger.stage;
  const meanwhile = reopened.getByTestId("meanwhile");
  if (!stageMoved && movedSteps.length === 0) {
    await expect(meanwhile).toHaveCount(0);
    test.info().annotations.push({ type: "note", description: "the page saw the Stop settle before the tab closed: nothing happened meanwhile" });
  } else {
    await expect(meanwhile).toContainText("While you were away");
    const lines = meanwhile.locator("li");
    await expect(lines).toHaveCount(movedSteps.length + (stageMoved ? 1 : 0));
    if (stageMoved) await expect(meanwhile).toContainText(/This request: \w[\w ]* → cancelled/);
    const exportStep = movedSteps.find((w) => w.toolName === "reports.export_report");
    if (exportStep) await expect(meanwhile).toContainText(/Exporting the report: .+ → partial/);
    test.info().annotations.push({
      type: "note",
      description: `saved at close: stage ${before.stage}, export ${before.items[ledger.workItems.find((w) => w.toolName === "reports.export_report")!.id] ?? "unseen"}`,
    });
  }
  const summary = reopened.getByTestId("stop-summary");
  await expect(summary).toHaveAttribute("data-status", api.status);
  await expect(summary.getByTestId("user-message")).toHaveText(api.user_message);
  await expect(second.getByTestId("composer-slot")).toHaveAttribute("data-holds", "send");
  await second.evaluate(() => window.scrollTo(0, 0));
  await shot(second, "reopened-meanwhile");
  await shotOf(second, summary, "reopened-summary");

  // Narrow screens: the same page, one column, the composer's slot (where Stop appears) still on screen.
  await second.setViewportSize({ width: 390, height: 844 });
  await expect(second.getByTestId("composer-slot")).toBeInViewport();
  await shot(second, "reopened-mobile");
  await context.close();
});

test("chat - loading and error states are designed, not blank", async ({ page }) => {
  await signIn(page);
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/api/tasks?conversationId=*", async (route) => {
    await held;
    await route.fulfill({ status: 503, json: { error: { code: "unavailable", message: "the ledger is not reachable right now" } } });
  });
  await page.goto("/chat/conversation-that-fails-to-load");
  await expect(page.getByRole("status").filter({ hasText: "Loading the conversation…" })).toBeAttached();
  await shot(page, "loading");
  release();
  await expect(page.getByRole("heading", { name: "Could not load the conversation" })).toBeVisible({ timeout: 15_000 });
  await expect(page.getByRole("alert").filter({ hasText: "Could not load the conversation" })).toContainText("The ledger is not reachable right now.");
  await shot(page, "error");
  await page.unroute("**/api/tasks?conversationId=*");
  await page.getByRole("button", { name: "Try again" }).click();
  await expect(page.getByTestId("chat-empty")).toBeVisible();
});
