import { readFile } from "node:fs/promises";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";

/**
 * The operator's pages against the real server (`npm start` with the demo world): a real compensation case
 * is made through the chat API (order a lamp → confirm → the order completes → the demo agent completes the
 * task → the agent requests its reversal → a review item), then the operator approves it in the review queue
 * bound to its version, sees it executed on the task's detail, finds the task in the audit and exports CSV;
 * the metrics page too.
 * Screenshots of every page and state go to output/screenshots/operator-*.png.
 */

const TOKEN = process.env.STOPLINE_BOOTSTRAP_TOKEN ?? "";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const shot = (page: Page, name: string) => page.screenshot({ path: `output/screenshots/operator-${name}.png`, fullPage: true });

interface Detail {
  id: string;
  stage: string;
  ownerId: string;
  workItems: { toolName: string; status: string }[];
  sideEffects: { id: string; outcome: string; externalRecordId: string | null; externalVersion: string | null; operationId: string }[];
  reviewItems: { id: string; kind: string; status: string }[];
}

async function detail(request: APIRequestContext, taskId: string): Promise<Detail> {
  const res = await request.get(`/api/tasks/${taskId}`, { headers: AUTH });
  expect(res.status()).toBe(200);
  return (await res.json()) as Detail;
}

/** An agent's own token: the agent (not the operator) talks to the chat and presses Stop — maker-checker. */
let agentAuth: Record<string, string> | null = null;
async function agent(request: APIRequestContext) {
  if (agentAuth) return agentAuth;
  const res = await request.post("/api/tokens", { headers: AUTH, data: { name: `operator-e2e-agent-${Date.now()}`, role: "agent" } });
  expect(res.status(), await res.text()).toBe(201);
  agentAuth = { Authorization: `Bearer ${((await res.json()) as { token: string }).token}` };
  return agentAuth;
}

/**
 * A lamp is ordered and confirmed; once the order is placed the demo agent completes the task (Stop on it would
 * change nothing); the agent then requests the reversal: the order needs another person's decision.
 */
async function orderedThenReversed(request: APIRequestContext, conversationId: string) {
  const AGENT = await agent(request);
  const turn = await request.post(`/api/conversations/${conversationId}/messages`, { headers: AGENT, data: { text: "order a lamp" } });
  expect(turn.status(), await turn.text()).toBe(201);
  const { taskId, proposal } = (await turn.json()) as { taskId: string; proposal: { version: number } };
  const confirm = await request.post(`/api/tasks/${taskId}/proposal/confirm`, { headers: AGENT, data: { proposalVersion: proposal.version } });
  expect(confirm.status(), await confirm.text()).toBe(201);
  await expect
    .poll(async () => (await detail(request, taskId)).sideEffects.filter((s) => s.outcome === "committed").length, { timeout: 30_000 })
    .toBeGreaterThan(0);
  await expect.poll(async () => (await detail(request, taskId)).stage, { timeout: 30_000 }).toBe("completed");
  const reversal = await request.post(`/api/tasks/${taskId}/reversal`, { headers: AGENT, data: { reason: "the customer changed their mind" } });
  expect(reversal.status(), await reversal.text()).toBe(200);
  await expect
    .poll(async () => (await detail(request, taskId)).reviewItems.filter((r) => r.kind === "approve_compensation").length, { timeout: 30_000 })
    .toBeGreaterThan(0);
  return detail(request, taskId);
}

async function signIn(page: Page, path: string) {
  await page.goto(path);
  await expect(page.getByRole("heading", { level: 1, name: "Sign in to the console" })).toBeVisible();
  // The admin-token form is the secondary way in, behind "Sign in with an API token instead".
  if (await page.locator('[data-testid="api-token-option"]:not([open])').count()) await page.getByText("Sign in with an API token instead").click();
  await page.getByLabel("Admin token").fill(TOKEN);
  await page.getByRole("button", { name: "Sign in with token" }).click();
}

test.describe.configure({ mode: "serial" });

test("operator pages: signed out → sign-in form; empty states", async ({ page }) => {
  for (const [path, name] of [
    ["/console/review", "review"],
    ["/console/metrics", "metrics"],
    ["/audit", "audit"],
    ["/console/tasks/nope", "task"],
  ] as const) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1, name: "Sign in to the console" })).toBeVisible();
    await expect(page.getByRole("button", { name: /Approve|Export/ })).toHaveCount(0);
    if (name === "review") await shot(page, "signed-out");
  }
  await signIn(page, "/console/tasks/no-such-task");
  await expect(page.getByText("There is no task with this id.")).toBeVisible();
  await shot(page, "task-not-found");
  await page.goto("/audit");
  await expect(page.getByText("Search by user, conversation, task, tool or time.")).toBeVisible();
  await shot(page, "audit-empty");
  await page.goto("/audit?from=2999-01-01T00:00:00Z&to=2000-01-01T00:00:00Z");
  await expect(page.getByRole("alert").filter({ hasText: "The search was refused" })).toContainText("from must not be after to");
  await shot(page, "audit-bad-filter");
});

test("operator: approve a reversal bound to its version, see it executed, the task detail, the audit and its CSV", async ({ page, request }) => {
  test.slow();
  const task = await orderedThenReversed(request, `conv-op-${Date.now()}`);
  const effect = task.sideEffects.find((s) => s.outcome === "committed")!;
  const review = task.reviewItems.find((r) => r.kind === "approve_compensation")!;

  await signIn(page, "/console/review");
  await expect(page.getByRole("heading", { level: 1, name: "Review queue" })).toBeVisible();
  const card = page.locator(`li[id="${review.id}"]`).getByTestId("review-item");
  await expect(card).toBeVisible();
  await expect(card.getByTestId("bound-version")).toHaveText(effect.externalVersion ?? "—");
  await expect(card).toContainText(effect.operationId);
  await shot(page, "review-queue");

  // The reason is required: nothing is sent without it.
  await card.getByRole("button", { name: /^Approve/ }).click();
  await expect(card.getByText("Say why, for the audit.")).toBeVisible();
  await shot(page, "review-reason-required");

  await card.getByLabel(/Reason/).fill("customer asked to cancel the order");
  await card.getByRole("button", { name: /^Approve/ }).click();
  await expect(page.getByTestId("announcer")).toContainText(/Compensation (executed|compensated|conflict|failed)/, { timeout: 30_000 });
  const announced = await page.getByTestId("announcer").textContent();
  await shot(page, "review-decided");
  expect(announced, "the demo shop's compensation should run").toContain("Compensation executed");
  await expect(page.getByTestId("decided-item").filter({ hasText: "resolved" }).first()).toBeVisible({ timeout: 15_000 });

  // The task detail: compensated effect, review resolved, the task completed (nobody pressed Stop), each step's outcome.
  await page.goto(`/console/tasks/${task.id}`);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(page.getByTestId("side-effect").first()).toHaveAttribute("data-outcome", "compensated", { timeout: 15_000 });
  await expect(page.getByTestId("timeline-row").first()).toBeVisible();
  await expect(page.getByTestId("task-ended")).toContainText("Completed");
  await expect(page.getByTestId("step-outcome").filter({ hasText: "Placing the order" })).toContainText(/took effect, then reversed/i, { timeout: 15_000 });
  await expect(page.getByRole("region", { name: "Cancellation plan and its execution" })).toContainText("Nobody pressed Stop");
  await expect(page.getByRole("status").filter({ hasText: "Live" })).toBeVisible();
  await shot(page, "task-detail");
  await page.locator("summary").filter({ hasText: "Raw event history" }).click();
  await expect(page.getByRole("cell", { name: "review_item.approved" })).toBeVisible();
  await shot(page, "task-detail-events");

  // The task list links to the detail page.
  await page.goto("/console");
  await page.locator(`tr[data-task-id="${task.id}"]`).click();
  await expect(page).toHaveURL(new RegExp(`/console/tasks/${task.id}$`));

  // The audit: find the task by its user, open it, export CSV.
  await page.goto("/audit");
  await page.getByLabel("User").fill(task.ownerId);
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page.getByTestId("audit-task").filter({ hasText: "" }).first()).toBeVisible();
  await shot(page, "audit-by-user");
  await page.goto(`/audit?taskId=${task.id}`);
  const row = page.getByTestId("audit-effect").first();
  await expect(row).toContainText(effect.operationId);
  await expect(row).toContainText("reversed"); // the one label map: an effect undone by its compensation reads "reversed" everywhere
  await expect(row).toContainText("approved");
  await shot(page, "audit-task");
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-csv").click()]);
  expect(download.suggestedFilename()).toMatch(/^stopline-audit-task-.+\.csv$/);
  const csvWithBom = await readFile((await download.path())!, "utf8");
  expect(csvWithBom.charCodeAt(0), "a UTF-8 byte-order mark first (Excel)").toBe(0xfeff);
  const csv = csvWithBom.slice(1);
  expect(csv.split("\r\n")[0]).toMatch(/^record,task_id,task_title/);
  expect(csv).toContain(effect.operationId);
  expect(csv).toMatch(/lamp/i);
  expect(csv).toContain("customer asked to cancel the order");
});

test("operator: a second approval of a decided item is refused with an explanation; metrics", async ({ page, request }) => {
  test.slow();
  const task = await orderedThenReversed(request, `conv-op2-${Date.now()}`);
  const review = task.reviewItems.find((r) => r.kind === "approve_compensation")!;
  // The live stream is held back so that this page still shows the item open when someone else decides it.
  await page.route("**/api/events*", (route) => route.abort());
  await signIn(page, "/console/review");
  const card = page.locator(`li[id="${review.id}"]`).getByTestId("review-item");
  await expect(card).toBeVisible();
  const other = await request.post(`/api/review-items/${review.id}/decision`, { headers: AUTH, data: { decision: "reject", reason: "handled by phone" } });
  expect(other.status(), await other.text()).toBe(200);
  await card.getByLabel(/Reason/).fill("approve it");
  await card.getByRole("button", { name: /^Approve/ }).click();
  await expect(card.getByTestId("decision-error")).toContainText(/already rejected this at .* Your decision was not recorded\./);
  await shot(page, "review-conflict");
  await page.unroute("**/api/events*");
  await page.reload();
  await expect(page.getByTestId("decided-item").filter({ hasText: "rejected" }).first()).toBeVisible({ timeout: 15_000 });
  await shot(page, "review-after-conflict");

  await page.goto("/console/metrics");
  await expect(page.getByRole("heading", { level: 1, name: "Metrics" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Outcomes over time" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Generation vs action cancellations" })).toBeVisible();
  await expect(page.getByText("Loading…")).toHaveCount(0, { timeout: 15_000 });
  await shot(page, "metrics");
});
