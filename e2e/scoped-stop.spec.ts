import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";

/**
 * Scoped Stop from the chat (issue 13): one running step is stopped with its own small Stop while the rest of the
 * request goes on. The step ends stopped (in the vocabulary's words); the task is never stopped as a whole; the
 * step's own summary (scope work_item) settles. Screenshots: output/screenshots/scoped-stop-*.png.
 */

const TOKEN = process.env.STOPLINE_BOOTSTRAP_TOKEN ?? "";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const STOPPED = ["stopped", "stopped_partial_kept", "discarded", "abandoned"];
const shot = (page: Page, name: string) => page.screenshot({ path: `output/screenshots/scoped-stop-${name}.png` });

test("chat - a single step stopped: it ends stopped, the rest of the request goes on, the task is not stopped", async ({ page, request }) => {
  test.slow();
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto("/chat");
  // The admin-token form is the secondary way in, behind "Sign in with an API token instead".
  await page.getByText("Sign in with an API token instead").click();
  await page.getByLabel("Admin token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in with token" }).click();
  const box = page.getByRole("textbox", { name: "Message to the agent" });
  await box.fill("export a report of 3000 rows");
  await box.press("Enter");
  const turn = page
    .getByTestId("turn")
    .filter({ has: page.getByTestId("user-message-bubble").filter({ hasText: "export a report of 3000 rows" }) })
    .last();
  const exportStep = turn.locator('[data-testid="step"][data-tool="reports.export_report"]');
  await expect(exportStep).toHaveAttribute("data-status", "running", { timeout: 15_000 });
  const taskId = (await turn.getAttribute("data-task-id"))!;

  const stepStop = exportStep.getByTestId("step-stop");
  await expect(stepStop).toBeVisible();
  await expect(stepStop).toHaveAccessibleName("Stop this step: Exporting the report");
  const axe = await new AxeBuilder({ page }).include('[data-testid="work-panel"]').analyze();
  expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
  await shot(page, "running-desktop");

  await stepStop.click();
  // The step follows the ledger: stopped, in the vocabulary's words.
  await expect.poll(async () => exportStep.getAttribute("data-outcome"), { timeout: 20_000 }).toMatch(new RegExp(`^(${STOPPED.join("|")})$`));
  await expect(exportStep.getByTestId("step-stop")).toHaveCount(0);
  // Issue 20 item 7: not just a green "done" — what that step did, in the vocabulary's words, once it settled.
  await expect(exportStep.getByTestId("step-stop-summary")).toHaveText(
    /^You stopped “Exporting the report” alone: (stopped — the complete part of its result is kept \([\d,]+ rows?\)|stopped|completed before the Stop \([\d,]+ rows\))\. The rest of the request was not stopped\.$/,
    { timeout: 20_000 },
  );
  await shot(page, "stopped-desktop");

  // The task itself was never stopped: no boundary, no Stop summary in the chat, and its other step completed.
  const detail = await (await request.get(`/api/tasks/${taskId}`, { headers: AUTH })).json();
  expect(detail.cancelRequestedAt).toBeNull();
  expect(detail.workItems.find((w: { toolName: string }) => w.toolName === "inference.generate").status).toBe("completed");
  await expect(turn.getByTestId("stop-summary")).toHaveCount(0);
  const stepId = detail.workItems.find((w: { toolName: string }) => w.toolName === "reports.export_report").id;
  let summary: { status: string; scope: { kind: string; ref: string } } | null = null;
  await expect
    .poll(async () => (summary = await (await request.get(`/api/work-items/${stepId}/cancellation`, { headers: AUTH })).json())!.status, { timeout: 20_000 })
    .not.toBe("IN_PROGRESS");
  expect(summary!.scope).toEqual({ kind: "work_item", ref: stepId });
  expect(["CANCELLED", "PARTIALLY_CANCELLED"]).toContain(summary!.status);

  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await exportStep.evaluate((el) => el.scrollIntoView({ block: "center" }));
  await shot(page, "stopped-390");
});

test("console - Stop the whole conversation: every request of it still under way gets its Stop (scope conversation); another conversation's does not", async ({
  page,
  request,
}) => {
  const conversation = `conv-scoped-${Date.now()}`;
  const make = async (title: string, conversationId: string) => {
    const task = await (await request.post("/api/tasks", { headers: AUTH, data: { title, conversationId } })).json();
    // A step no worker serves: it stays queued until a Stop removes it.
    const step = await request.post(`/api/tasks/${task.id}/work-items`, {
      headers: AUTH,
      data: { kind: "local_worker", toolName: "e2e.nobody_serves_this", mechanism: "abort_signal", intentVersion: 1 },
    });
    expect(step.status()).toBe(201);
    return task.id as string;
  };
  const first = await make("first request of the conversation", conversation);
  const second = await make("second request of the conversation", conversation);
  const elsewhere = await make("a request elsewhere", `${conversation}-other`);

  await page.goto(`/console/tasks/${first}`);
  // The admin-token form is the secondary way in, behind "Sign in with an API token instead".
  await page.getByText("Sign in with an API token instead").click();
  await page.getByLabel("Admin token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in with token" }).click();
  const control = page.getByTestId("stop-conversation");
  await control.getByRole("button", { name: "Stop the whole conversation…" }).click();
  await control.getByRole("button", { name: "Stop them all" }).click();
  await expect(control.getByRole("status")).toHaveText("Stopped 2 requests of this conversation.");
  await shot(page, "conversation-stopped-desktop");

  for (const id of [first, second]) {
    await expect
      .poll(async () => (await (await request.get(`/api/tasks/${id}/cancellation`, { headers: AUTH })).json()).status, { timeout: 20_000 })
      .toBe("CANCELLED");
    expect((await (await request.get(`/api/tasks/${id}/cancellation`, { headers: AUTH })).json()).scope).toEqual({ kind: "conversation", ref: conversation });
  }
  expect((await (await request.get(`/api/tasks/${elsewhere}`, { headers: AUTH })).json()).cancelRequestedAt).toBeNull();
});

test("console - Stop everything of a person: every request of the task's owner still under way gets its Stop (scope person); another person's does not", async ({
  page,
  request,
}) => {
  const owner = `e2e-person-${Date.now()}`;
  const make = async (title: string, ownerId: string, conversationId: string) => {
    const task = await (await request.post("/api/tasks", { headers: AUTH, data: { title, ownerId, conversationId } })).json();
    const step = await request.post(`/api/tasks/${task.id}/work-items`, {
      headers: AUTH,
      data: { kind: "local_worker", toolName: "e2e.nobody_serves_this", mechanism: "abort_signal", intentVersion: 1 },
    });
    expect(step.status()).toBe(201);
    return task.id as string;
  };
  // Two conversations of one person, and someone else's request.
  const first = await make("the person's first request", owner, `${owner}-a`);
  const second = await make("the person's request in another conversation", owner, `${owner}-b`);
  const someoneElse = await make("someone else's request", `${owner}-other`, `${owner}-c`);

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/console/tasks/${first}`);
  await page.getByText("Sign in with an API token instead").click();
  await page.getByLabel("Admin token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in with token" }).click();
  const control = page.getByTestId("stop-person");
  await control.getByRole("button", { name: "Stop everything of this task's owner…" }).click();
  await expect(control.getByText("Stop every request of this task's owner, in every conversation?")).toBeVisible();
  const axe = await new AxeBuilder({ page }).include('[data-testid="stop-person"]').analyze();
  expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
  await control.getByRole("button", { name: "Stop them all" }).click();
  await expect(control.getByRole("status")).toHaveText("Stopped 2 requests of this task's owner.");
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot(page, "person-stopped-390");

  for (const id of [first, second]) {
    await expect
      .poll(async () => (await (await request.get(`/api/tasks/${id}/cancellation`, { headers: AUTH })).json()).status, { timeout: 20_000 })
      .toBe("CANCELLED");
    expect((await (await request.get(`/api/tasks/${id}/cancellation`, { headers: AUTH })).json()).scope).toEqual({ kind: "person", ref: owner });
  }
  expect((await (await request.get(`/api/tasks/${someoneElse}`, { headers: AUTH })).json()).cancelRequestedAt).toBeNull();
});
