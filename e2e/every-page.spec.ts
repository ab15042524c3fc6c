import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { WIDTHS } from "./page-checks";

/**
 * Every page, signed in as an admin (token), at desktop and at 390 px: axe finds nothing serious or critical, and
 * nothing scrolls sideways on the phone. Screenshots: output/screenshots/every-page-<width>-<page>.png.
 */

const TOKEN = process.env.STOPLINE_BOOTSTRAP_TOKEN ?? "";
const AUTH = { Authorization: `Bearer ${TOKEN}` };

// Twenty-odd pages and states, each with axe, on a shared 2-core machine.
test.describe.configure({ mode: "serial", timeout: 600_000 });

async function seriousViolations(page: Page) {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${page.url()} ${v.id}: ${v.help} (${v.nodes
          .map((n) => n.target.join(" "))
          .slice(0, 3)
          .join(", ")})`,
    );
}

for (const size of WIDTHS) {
  test(`${size.name}: every page — axe 0 serious, 0 critical; no sideways scrolling on a phone`, async ({ browser, request }) => {
    const created = await request.post("/api/tasks", {
      headers: AUTH,
      data: { title: "A task for the page sweep", conversationId: `conv-sweep-${Date.now()}` },
    });
    expect(created.status()).toBe(201);
    const task = (await created.json()) as { id: string; conversationId: string };
    const context = await browser.newContext({ viewport: size });
    const page = await context.newPage();
    const found: string[] = [];
    const wide: string[] = [];
    const visit = async (path: string, name: string, ready?: () => Promise<void>) => {
      await page.goto(path);
      // Pages keep a live event stream open (never "network idle"): give their data a moment to arrive instead.
      await page.locator("main").first().waitFor();
      if (ready) await ready();
      else await page.waitForTimeout(1_500);
      found.push(...(await seriousViolations(page)));
      const [scroll, client] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
      if (scroll > client + 1) wide.push(`${path}: ${scroll}px wide in a ${client}px window`);
      await page.screenshot({ path: `output/screenshots/every-page-${size.name}-${name}.png`, fullPage: true });
    };
    for (const [path, name] of [
      ["/", "home"],
      ["/sign-in", "sign-in"],
      ["/chat", "chat-signed-out"],
      ["/console", "console-signed-out"],
    ] as const)
      await visit(path, name);
    await page.goto("/console");
    await page.getByText("Sign in with an API token instead").click();
    await page.getByLabel("Admin token").fill(TOKEN);
    await page.getByRole("button", { name: "Sign in with token" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Tasks" })).toBeVisible();
    for (const [path, name] of [
      ["/console", "tasks"],
      [`/console/tasks/${task.id}`, "task"],
      ["/console/review", "review"],
      ["/console/escalations", "escalations"],
      ["/console/metrics", "metrics"],
      ["/audit", "audit"],
      ["/console/admin", "admin"],
      ["/console/demo", "demo"],
      ["/chat", "chat"],
      [`/chat/${task.conversationId}`, "conversation"],
      ["/api-docs", "api-docs"],
    ] as const) {
      await visit(path, name);
    }
    // The shared states (components/ui/states.tsx) on the pages that use them: could not load, and session ended.
    for (const [status, state] of [
      [503, "error"],
      [401, "session-ended"],
    ] as const) {
      for (const [path, api, name] of [
        ["/console", /\/api\/tasks\?limit=/, "tasks"],
        [`/console/tasks/${task.id}`, new RegExp(`/api/tasks/${task.id}$`), "task"],
        ["/console/review", /\/api\/review-items(\?|$)/, "review"],
        ["/console/escalations", /\/api\/escalations(\?|$)/, "escalations"],
        [`/chat/${task.conversationId}`, /\/api\/tasks\?conversationId=/, "conversation"],
      ] as const) {
        await page.route(api, (route) =>
          route.fulfill({ status, json: { error: { code: status === 401 ? "unauthorized" : "unavailable", message: "refused for the page sweep" } } }),
        );
        await visit(path, `${name}-${state}`, () =>
          expect(page.getByTestId(status === 401 ? "session-ended" : "state-error").first()).toBeVisible({ timeout: 15_000 }),
        );
        await page.unroute(api);
      }
    }
    // Both lists at once, so one run shows every finding.
    expect({ axe: found, wide: size.name === "phone" ? wide : [] }).toEqual({ axe: [], wide: [] });
    await context.close();
  });
}
