import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/** What a screen-reader or keyboard user would hit: no serious or critical axe violation on the page as it is now. */
export async function accessible(page: Page, include?: string) {
  const builder = new AxeBuilder({ page });
  const result = await (include ? builder.include(include) : builder).analyze();
  const serious = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")})`)).toEqual([]);
}
