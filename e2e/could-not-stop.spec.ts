import { readFile } from "node:fs/promises";
import { expect, test, type Page } from "@playwright/test";
import { accessible } from "./page-checks";

/**
 * "Could not stop", where people look (issue 10): a report export whose cancel endpoint answers 503 runs on after
 * the Stop and finishes. The chat, the console's task detail and the audit must each say so in the one
 * vocabulary's words — never "finished before the Stop could reach it" — with ids and status codes behind
 * "Details". Real server, real demo services (fault control set through the API). Screenshots at desktop width
 * and at 390 px: output/screenshots/could-not-stop-*.png.
 */

const TOKEN = process.env.STOPLINE_BOOTSTRAP_TOKEN ?? "";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const REFUSED_RUNNING = "could not be stopped — the service refused the cancel; it is still running";
const REFUSED_FINISHED = /could not be stopped — the service refused the cancel; it finished \d+ s after the Stop/i;

let taskId = "";
/** The chat's "Since the Stop" line: the console and the audit must show it word for word (issue 20, item 4). */
let sinceText = "";

async function shots(page: Page, name: string, target?: ReturnType<Page["locator"]>) {
  for (const [size, viewport] of [
    ["desktop", DESKTOP],
    ["390", PHONE],
  ] as const) {
    await page.setViewportSize(viewport);
    // Nothing wider than the screen: a phone scrolls down, never sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} at ${size}`).toBeLessThanOrEqual(viewport.width);
    if (target) await target.evaluate((el) => el.scrollIntoView({ block: "center" }));
    await page.screenshot({ path: `output/screenshots/could-not-stop-${name}-${size}.png`, fullPage: size === "390" });
  }
  await page.setViewportSize(DESKTOP);
}

async function consoleSignIn(page: Page, path: string) {
  await page.goto(path);
  // The admin-token form is the secondary way in, behind "Sign in with an API token instead".
  if (await page.locator('[data-testid="api-token-option"]:not([open])').count()) await page.getByText("Sign in with an API token instead").click();
  await page.getByLabel("Admin token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in with token" }).click();
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ request }) => {
  const set = await request.post("/api/demo/services/reports/faults", { headers: AUTH, data: { cancelUnavailable: true } });
  expect(set.status(), await set.text()).toBe(200);
});
test.afterAll(async ({ request }) => {
  await request.post("/api/demo/services/reports/faults", { headers: AUTH, data: {} });
});

test("chat - could not stop: the export's cancel is refused; the chat says it is still running, then that it finished N s after the Stop", async ({ page }) => {
  test.slow();
  await page.setViewportSize(DESKTOP);
  await page.goto("/chat");
  // The admin-token form is the secondary way in, behind "Sign in with an API token instead".
  if (await page.locator('[data-testid="api-token-option"]:not([open])').count()) await page.getByText("Sign in with an API token instead").click();
  await page.getByLabel("Admin token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in with token" }).click();
  const box = page.getByRole("textbox", { name: "Message to the agent" });
  await box.fill("export a report of 450 rows");
  await box.press("Enter");
  const turn = page
    .getByTestId("turn")
    .filter({ has: page.getByTestId("user-message-bubble").filter({ hasText: "export a report of 450 rows" }) })
    .last();
  const exportStep = turn.locator('[data-testid="step"][data-tool="reports.export_report"]');
  await expect(exportStep).toHaveAttribute("data-status", "running", { timeout: 15_000 });
  taskId = (await turn.getAttribute("data-task-id"))!;
  // The reply says what Stop would do, without quoting itself or promising a proposal.
  await expect(turn.getByTestId("generated-text")).toContainText("If you press Stop, the rows already written are kept", { timeout: 10_000 });
  await expect(turn.getByTestId("agent-reply")).not.toContainText("proposal");

  await page.getByTestId("stop-button").click();
  const summary = turn.getByTestId("stop-summary");
  await expect(summary).toHaveAttribute("data-status", "CANCELLATION_FAILED", { timeout: 20_000 });
  await expect(summary.getByTestId("user-message")).toContainText(`One step could not be stopped — the service refused the cancel; it is still running.`);
  await expect(summary.getByTestId("summary-unstoppable")).toContainText(`Exporting the report — ${REFUSED_RUNNING}`);
  await expect(exportStep.getByTestId("step-status")).toHaveText("could not stop — still running");
  await expect(summary.getByTestId("summary-orphaned-resources")).toContainText("still held by a step that is still running");
  await shots(page, "chat-still-running", summary);

  // It finishes anyway: what happened after the Stop is added to the story, never written over it (issue 20, item 4) —
  // the settled verdict stays, and "Since the Stop" says it ran on and finished; never "finished before the Stop could reach it".
  await expect(summary.getByTestId("summary-since-settlement")).toContainText(/Exporting the report: it ran \d+ s past the Stop, then finished/, {
    timeout: 30_000,
  });
  await expect(summary).toHaveAttribute("data-status", "CANCELLATION_FAILED");
  await expect(summary.getByTestId("user-message")).toContainText(
    "One step could not be stopped — the service refused the cancel; it was still running when the Stop settled.",
  );
  await expect(summary.getByTestId("user-message")).toContainText(/Since the Stop: Exporting the report: it ran \d+ s past the Stop, then finished/);
  sinceText = (await summary.getByTestId("since-line").first().textContent())!;
  expect(sinceText).toMatch(/^Exporting the report: it ran \d+ s past the Stop, then finished/);
  await expect(summary).not.toContainText("before the Stop could reach");
  await expect(summary.getByTestId("summary-unstoppable")).toContainText("Exporting the report — could not be stopped — the service refused the cancel");
  await expect(exportStep.getByTestId("step-status")).toHaveText("could not stop — finished anyway");
  await expect(exportStep.getByTestId("step-detail")).toContainText(REFUSED_FINISHED);
  // Plain words first: the tool's name, ids and the HTTP status sit behind "Details".
  const plain = summary.locator("dl");
  await expect(plain).not.toContainText("reports.export_report");
  await expect(plain).not.toContainText("503");
  const details = summary.getByTestId("summary-details");
  await expect(details.getByText("reports.export_report")).toBeHidden();
  await details.locator("summary").click();
  await expect(details).toContainText("reports.export_report");
  await expect(details).toContainText(taskId);
  await accessible(page, '[data-testid="turn"]');
  await shots(page, "chat-finished-anyway", summary);
});

test("task detail - could not stop: what each step did, in the same words, with the engine's settlement", async ({ page }) => {
  expect(taskId).not.toBe("");
  await page.setViewportSize(DESKTOP);
  await consoleSignIn(page, `/console/tasks/${taskId}`);
  const step = page.locator('[data-testid="step-outcome"][data-tool="reports.export_report"]');
  await expect(step).toHaveAttribute("data-outcome", "could_not_stop_finished", { timeout: 15_000 });
  await expect(step.getByTestId("step-outcome-words")).toHaveText(
    /^Could not be stopped — the service refused the cancel; it finished \d+ s after the Stop\.$/,
  );
  await expect(step).toContainText("could not stop — finished anyway");
  await expect(page.getByTestId("settlement")).toContainText("Settled at");
  await expect(page.locator('[data-testid="timeline-row"][data-outcome="could_not_stop_finished"]')).toHaveCount(1);
  // "Since the Stop", from the same summary data and in the same words as the chat — never a different wording.
  await expect(page.getByTestId("since-settlement").getByTestId("since-line")).toHaveText([sinceText], { timeout: 15_000 });
  // The refusal's record (the cancel sent and refused) is one click away, not in the way.
  await step.locator("summary").click();
  await expect(step).toContainText("refused or failed");
  await accessible(page, 'section[aria-labelledby="outcomes-title"]');
  await shots(page, "task-detail", step);
});

test("audit - could not stop: the task's steps and their outcomes, on the page and in the CSV", async ({ page }) => {
  expect(taskId).not.toBe("");
  await page.setViewportSize(DESKTOP);
  await consoleSignIn(page, `/audit?taskId=${taskId}`);
  const outcome = page.locator('[data-testid="audit-outcome"][data-outcome="could_not_stop_finished"]');
  await expect(outcome).toHaveCount(1, { timeout: 15_000 });
  await expect(outcome).toContainText(/Exporting the report — could not be stopped — the service refused the cancel; it finished \d+ s after the Stop/);
  await expect(page.getByTestId("audit-task").getByTestId("since-line")).toHaveText([sinceText], { timeout: 15_000 });
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-csv").click()]);
  const csv = await readFile((await download.path())!, "utf8");
  const row = csv.split("\r\n").find((line) => line.startsWith(`outcome,${taskId},`) && line.includes("reports.export_report"));
  expect(row, csv).toMatch(/,could_not_stop_finished,.*could not be stopped — the service refused the cancel; it finished \d+ s after the Stop/);
  await accessible(page, '[data-testid="audit-task"]');
  await shots(page, "audit", outcome);
});
