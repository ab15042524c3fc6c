import { expect, type Browser } from "@playwright/test";

/** A demo account's password (scripts/start.ts seeds them; STOPLINE_DEMO_PASSWORD overrides all). */
export const demoPassword = (role: string) => process.env.STOPLINE_DEMO_PASSWORD || `stopline-${role}-demo`;

/** A new browser context signed in as a demo person (user → lands in the chat, support → the console). */
export async function personPage(browser: Browser, who: "user" | "support", viewport: { width: number; height: number }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(`${who}@stopline.local`);
  await page.getByLabel("Password").fill(demoPassword(who));
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(who === "user" ? /\/chat$/ : /\/console$/, { timeout: 20_000 });
  return page;
}
