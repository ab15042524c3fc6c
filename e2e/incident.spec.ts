import { expect, test, type Browser, type Page } from "@playwright/test";
import { liftEveryIncident } from "./incidents";
import { accessible } from "./page-checks";

/**
 * The incident kill switch in the console (issue 13): an admin turns it on for the report export while an export
 * runs; the incident page shows, live, the task touched and the export being stopped and then stopped; a new export
 * is refused with the incident's reason (409 quarantined); lifting is asked by the admin, refused to the admin's own
 * confirmation, and confirmed by an operator. Screenshots: output/screenshots/incident-*.png (1280 and 390 px).
 */

const TOKEN = process.env.STOPLINE_BOOTSTRAP_TOKEN ?? "";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const TOOL = "reports.export_report";
const REASON = "exports leak another tenant's rows";
const shot = (page: Page, name: string) => page.screenshot({ path: `output/screenshots/incident-${name}.png`, fullPage: true });

// Pass or fail, no switch is left on for the specs after this one.
test.afterAll(async ({ request, browser }) => liftEveryIncident(request, browser));

async function operator(browser: Browser) {
  const page = await (await browser.newContext()).newPage();
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill("operator@stopline.local");
  await page.getByLabel("Password").fill(process.env.STOPLINE_DEMO_PASSWORD || "stopline-operator-demo");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/console$/, { timeout: 20_000 });
  return page;
}

test("console - kill switch on the export during a run: the incident page follows it live; new work refused with the reason; lifting takes a second person", async ({
  page,
  request,
  browser,
}) => {
  test.slow();
  // An export under way (through the demo agent, as a person's chat would start it) — 3 minutes long, so that it still
  // runs when the switch goes on however slow the machine is.
  const turn = await request.post("/api/conversations/conv-incident/messages", {
    headers: AUTH,
    data: { text: "export a report of 9000 rows", turnId: "incident-turn-1" },
  });
  expect(turn.status(), await turn.text()).toBe(201);
  const { taskId } = (await turn.json()) as { taskId: string };
  await expect
    .poll(
      async () =>
        (await (await request.get(`/api/tasks/${taskId}`, { headers: AUTH })).json()).workItems.find((w: { toolName: string }) => w.toolName === TOOL)?.status,
      { timeout: 15_000 },
    )
    .toBe("running");

  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto("/console/incidents");
  // The admin-token form is the secondary way in, behind "Sign in with an API token instead".
  await page.getByText("Sign in with an API token instead").click();
  await page.getByLabel("Admin token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in with token" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Incidents" })).toBeVisible();
  const form = page.getByTestId("open-incident");
  // The form offers the tools the ledger knows by their exact names, and says when a name matches nothing known.
  await expect(form.getByTestId("incident-targets").locator(`option[value="${TOOL}"]`)).toHaveCount(1);
  await form.getByLabel("Tool name").fill("export_report");
  await expect(form.getByTestId("incident-target-unknown")).toContainText("No work of a tool by this exact name is known");
  await accessible(page, "main");
  await shot(page, "form-unknown-tool-desktop");
  await form.getByLabel("Tool name").fill(TOOL);
  await expect(form.getByTestId("incident-target-unknown")).toHaveCount(0);
  await form.getByLabel(/Reason/).fill(REASON);
  await accessible(page, "main");
  await form.getByRole("button", { name: "Turn the kill switch on" }).click();
  await expect(form.getByRole("status")).toContainText("The kill switch is on. 1 thing of it being stopped.");

  // New work of the tool is refused with the incident's reason (in a new task: the agent ends the stopped turn's own).
  const fresh = await (await request.post("/api/tasks", { headers: AUTH, data: { title: "another export, during the incident" } })).json();
  const refused = await request.post(`/api/tasks/${fresh.id}/work-items`, {
    headers: AUTH,
    data: { kind: "remote_tool", toolName: TOOL, mechanism: "provider_cancel", intentVersion: 1 },
  });
  expect(refused.status()).toBe(409);
  expect((await refused.json()).error).toMatchObject({ code: "quarantined", details: { reason: REASON } });

  // The incident page: the task touched, the export stopped (live), nothing left stopping.
  await form.getByRole("link", { name: "Open the incident" }).click();
  const detail = page.getByTestId("incident-detail");
  await expect(detail).toHaveAttribute("data-on", "true");
  await expect(detail.getByTestId("incident-task")).toHaveCount(1);
  // The export (and, since issue 20 item 2 the person's whole request is stopped by the incident, its reply if it still ran).
  const exportStep = detail.getByTestId("incident-step").filter({ hasText: "Exporting the report" });
  await expect(exportStep).toHaveAttribute("data-outcome", /^(stopped|stopped_partial_kept|discarded)$/, { timeout: 20_000 });
  await expect(detail.getByTestId("incident-counts")).toContainText("Still stopping0");
  await accessible(page, "main");
  await shot(page, "detail-desktop");
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot(page, "detail-390");
  await page.setViewportSize({ width: 1280, height: 900 });

  // Lifting: the admin asks; the admin's own confirmation is refused; the switch stays on.
  await page.getByTestId("lift-request").getByLabel("Why is it safe now?").fill("tenant routing fixed and verified");
  await page.getByRole("button", { name: "Ask to lift it" }).click();
  await page.getByRole("button", { name: "Confirm lifting it" }).click();
  await expect(detail.getByRole("alert")).toContainText("another person must confirm it");
  await expect(detail).toHaveAttribute("data-on", "true");
  await shot(page, "lift-asked-desktop");

  // An operator confirms: lifted; the tool may be scheduled again.
  const other = await operator(browser);
  await other.goto(page.url());
  await other.getByRole("button", { name: "Confirm lifting it" }).click();
  await expect(other.getByTestId("incident-state")).toHaveText("lifted");
  await expect(page.getByTestId("incident-state")).toHaveText("lifted", { timeout: 10_000 }); // live on the admin's page too
  await other.context().close();
});
