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

/** No sideways scrolling: the page is no wider than the window. On failure, the message names what sticks out. */
export async function fitsWidth(page: Page) {
  const [scroll, client] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  if (scroll > client + 1) expect(scroll, `the page scrolls sideways; what sticks out: ${await stickingOut(page)}`).toBeLessThanOrEqual(client + 1);
}

/**
 * Polls until the page fits its window (the layout follows a resize within a frame or two); on failure the message
 * names the elements that stick out, outside scroll containers (a CI run read 412 px at 390 on the audit, which
 * never happened here: wider fonts on that machine pushed the header's nav and a grid's min-content width out).
 */
export async function fitsWidthSoon(page: Page, what: string) {
  const width = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  try {
    await expect.poll(width, { timeout: 5_000 }).toBeLessThanOrEqual(1);
  } catch {
    expect(await width(), `${what} scrolls sideways; what sticks out: ${await stickingOut(page)}`).toBeLessThanOrEqual(1);
  }
}

/** The outermost elements whose right edge passes the window's, outside scroll containers, with a bit of their text. */
function stickingOut(page: Page): Promise<string> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const out: string[] = [];
    for (const e of document.querySelectorAll("body *")) {
      const right = e.getBoundingClientRect().right;
      if (right <= width + 1 || e.closest(".overflow-x-auto, .overflow-auto")) continue;
      if (e.parentElement && e.parentElement.getBoundingClientRect().right > width + 1) continue; // its parent is listed
      out.push(
        `<${e.tagName.toLowerCase()} class="${String(e.getAttribute("class") ?? "").slice(0, 80)}"> to ${Math.round(right)} px: "${(e.textContent ?? "").trim().slice(0, 60)}"`,
      );
    }
    return out.slice(0, 8).join("; ") || "nothing outside a scroll container (a scroll container itself is too wide)";
  });
}
