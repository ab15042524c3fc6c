import { expect, test, type Page } from "@playwright/test";
import { accessible } from "./page-checks";

/**
 * The Stop preview (issue 13): what Stop would do, shown before it is pressed — in the chat while the pointer rests
 * on Stop, while Stop has the keyboard focus, and after a long press on a phone (which does not press Stop); in the
 * console's task detail beside "Stop task…" and in its confirmation. Then Stop is pressed and what it did is held
 * to what the preview said. Screenshots: output/screenshots/stop-preview-*.png (desktop and 390 px).
 */

const TOKEN = process.env.STOPLINE_BOOTSTRAP_TOKEN ?? "";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };
const shot = (page: Page, name: string) => page.screenshot({ path: `output/screenshots/stop-preview-${name}.png` });

test.describe.configure({ mode: "serial" });

test("chat - hovering, focusing and long-pressing Stop shows what it would do; Stop then does that", async ({ page, request }) => {
  test.setTimeout(240_000); // a long scenario against a real server, on a machine that may be busy
  await page.setViewportSize(DESKTOP);
  await page.goto("/chat");
  // The admin-token form is the secondary way in, behind "Sign in with an API token instead".
  await page.getByText("Sign in with an API token instead").click();
  await page.getByLabel("Admin token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in with token" }).click();
  const box = page.getByRole("textbox", { name: "Message to the agent" });
  await box.fill("export a report of 9000 rows");
  await box.press("Enter");
  const turn = page
    .getByTestId("turn")
    .filter({ has: page.getByTestId("user-message-bubble").filter({ hasText: "export a report of 9000 rows" }) })
    .last();
  const exportStep = turn.locator('[data-testid="step"][data-tool="reports.export_report"]');
  await expect(exportStep).toHaveAttribute("data-status", "running", { timeout: 15_000 });
  const taskId = (await turn.getAttribute("data-task-id"))!;

  const stop = page.getByTestId("stop-button");
  const preview = page.getByTestId("stop-preview");
  await expect(preview).toBeHidden();

  // Hover: the preview, from the API, in the vocabulary's words.
  await stop.hover();
  await expect(preview).toBeVisible();
  await expect(preview).toContainText("If you press Stop now");
  const child = preview.locator('[data-testid="stop-preview-child"][data-kind="service_cancels"]');
  await expect(child).toContainText("Exporting the report will be cancelled at its service");
  await expect(child).toContainText("Stop reports what the service says, not what it was told");
  await expect(preview.getByTestId("stop-preview-headline")).toHaveText(/^\d steps? will be stopped\.$/);
  // Stop is described by the preview (a screen reader hears it with the button).
  expect(await stop.getAttribute("aria-describedby")).toContain((await preview.getAttribute("id"))!);
  await shot(page, "chat-hover-desktop");
  await accessible(page, '[data-testid="stop-preview"]');

  // The API says the same, and wrote nothing: the task is still running, no boundary.
  const api = await (await request.get(`/api/tasks/${taskId}/stop-preview`, { headers: AUTH })).json();
  expect(api.state).toBe("would_stop");
  expect(api.children.find((c: { tool_name: string }) => c.tool_name === "reports.export_report")).toMatchObject({
    action: "abort",
    preview: { kind: "service_cancels" },
  });
  const before = await (await request.get(`/api/tasks/${taskId}`, { headers: AUTH })).json();
  expect(before.cancelRequestedAt).toBeNull();

  // Pointer away: hidden. Keyboard focus: shown again.
  await page.mouse.move(5, 5);
  await expect(preview).toBeHidden();
  await stop.focus();
  await expect(preview).toBeVisible();
  await expect(child).toBeVisible();
  await box.focus();
  await expect(preview).toBeHidden();

  // A phone: a long press shows the preview and does NOT press Stop.
  await page.setViewportSize(PHONE);
  await stop.dispatchEvent("pointerdown", { pointerType: "touch", isPrimary: true, bubbles: true });
  await expect(preview).toBeVisible({ timeout: 2_000 });
  await expect(child).toBeVisible();
  await stop.dispatchEvent("pointerup", { pointerType: "touch", isPrimary: true, bubbles: true });
  await stop.dispatchEvent("click");
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  await shot(page, "chat-long-press-390");
  await expect(page.getByTestId("stop-label")).toHaveText("Stop");
  expect((await (await request.get(`/api/tasks/${taskId}`, { headers: AUTH })).json()).cancelRequestedAt).toBeNull();
  await page.setViewportSize(DESKTOP);

  // The console's task detail: the preview beside Stop (hover) and in the confirmation.
  const consolePage = await page.context().newPage();
  await consolePage.setViewportSize(DESKTOP);
  await consolePage.goto(`/console/tasks/${taskId}`);
  const consoleStop = consolePage.getByTestId("console-stop");
  await consoleStop.hover();
  await expect(consolePage.getByTestId("stop-preview")).toContainText("Exporting the report will be cancelled at its service");
  await consolePage.screenshot({ path: "output/screenshots/stop-preview-console-hover-desktop.png" });
  await consoleStop.click();
  const confirm = consolePage.getByTestId("console-stop-confirm");
  await expect(confirm.getByTestId("stop-preview")).toContainText("will be stopped.");
  await accessible(consolePage, '[data-testid="console-stop-confirm"]');
  await consolePage.screenshot({ path: "output/screenshots/stop-preview-console-confirm-desktop.png" });
  await consolePage.setViewportSize(PHONE);
  expect(await consolePage.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  await confirm.evaluate((el) => el.scrollIntoView({ block: "center" }));
  await consolePage.screenshot({ path: "output/screenshots/stop-preview-console-confirm-390.png" });
  await consolePage.close();

  // Stop: the child the preview named was stopped through its service (the property test holds every plan to its preview).
  await stop.click();
  await expect(page.getByTestId("stop-label")).toHaveText("Stopping…", { timeout: 1_000 });
  let summary: { status: string; tool_calls: { tool_name: string; outcome: { kind: string } }[] } | null = null;
  // Until the click's boundary is recorded there is no summary yet (an error answer, no status): wait for a settled one.
  await expect
    .poll(async () => (summary = await (await request.get(`/api/tasks/${taskId}/cancellation`, { headers: AUTH })).json())!.status ?? "no summary yet", {
      timeout: 30_000,
    })
    .not.toMatch(/^(IN_PROGRESS|no summary yet)$/);
  const exported = summary!.tool_calls.find((c) => c.tool_name === "reports.export_report")!;
  expect(["stopped", "stopped_partial_kept", "discarded"]).toContain(exported.outcome.kind);
  await expect(preview).toBeHidden();
  // Nothing left to stop: Send is back in the composer's slot, and no preview.
  await expect(page.getByTestId("composer-slot")).toHaveAttribute("data-holds", "send", { timeout: 20_000 });
  await expect(stop).toHaveCount(0);
  await page.getByTestId("composer-slot").hover();
  await expect(preview).toBeHidden();
});
