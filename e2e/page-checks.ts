import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/** The two widths every page is looked at: a desktop window and a phone. */
export const WIDTHS = [
  { name: "desktop", width: 1280, height: 900 },
  { name: "phone", width: 390, height: 844 },
] as const;

/** What a screen-reader or keyboard user would hit: no serious or critical axe violation (in `include`, or the page). */
export async function accessible(page: Page, include?: string) {
  const builder = new AxeBuilder({ page });
  const result = await (include ? builder.include(include) : builder).analyze();
  const serious = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`)).toEqual([]);
}

/** No sideways scrolling: the page is no wider than the window. */
export async function fitsWidth(page: Page) {
  const [scroll, client] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  expect(scroll, "the page scrolls sideways").toBeLessThanOrEqual(client + 1);
}
