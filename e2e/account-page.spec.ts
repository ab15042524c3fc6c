import { expect, request as playwrightRequest, test, type Browser, type Page } from "@playwright/test";
import { E2E_BASE_URL } from "./env";

/**
 * A person's own account page (/account) against the real `npm start` server: user2 is signed in in two
 * browsers; in one they see who they are, get each field error (wrong current password, too short, mismatch),
 * then change the password — the other browser is signed out on its next load, the old password no longer
 * signs in and the new one does; from there they sign the first browser out ("Sign out of all other
 * browsers") and change the password back. Other specs sign in as user2 with the demo password, so it is
 * restored in afterAll through Better Auth's API whatever happened above. Screenshots: output/screenshots/account-page-*.png.
 */

const EMAIL = "user2@stopline.local";
const DEMO_PASSWORD = process.env.STOPLINE_DEMO_PASSWORD || "stopline-user2-demo";
const NEW_PASSWORD = "a-new-passphrase-for-ulf";
const shot = (page: Page, name: string) => page.screenshot({ path: `output/screenshots/account-page-${name}.png`, fullPage: true });

/** Fills the sign-in form on the page it is on (the /sign-in page). */
async function fillSignIn(page: Page, password: string) {
  await expect(page.getByRole("heading", { level: 1, name: "Sign in to Stopline" })).toBeVisible();
  await page.getByLabel("Email").fill(EMAIL);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

async function signIn(browser: Browser) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto("/sign-in", { waitUntil: "networkidle" });
  await fillSignIn(page, DEMO_PASSWORD);
  await expect(page).toHaveURL(/\/chat$/);
  return page;
}

async function changePassword(page: Page, current: string, next: string, confirm = next) {
  const form = page.getByTestId("change-password-form");
  await form.getByLabel("Current password").fill(current);
  await form.getByLabel("New password", { exact: true }).fill(next);
  await form.getByLabel("Confirm new password").fill(confirm);
  await form.getByRole("button", { name: "Change password" }).click();
}

/**
 * Puts the demo password back through Better Auth's own endpoints when it is not in force: signs in with the
 * new password and changes it back. Waits out Better Auth's rate limit (a few change attempts per 10 s).
 */
async function restoreDemoPassword() {
  const api = await playwrightRequest.newContext({ baseURL: E2E_BASE_URL, extraHTTPHeaders: { origin: E2E_BASE_URL } });
  try {
    const signIn = async (password: string) => {
      for (let attempt = 0; attempt < 5; attempt++) {
        const res = await api.post("/api/auth/sign-in/email", { data: { email: EMAIL, password } });
        if (res.status() !== 429) return res.ok();
        await new Promise((r) => setTimeout(r, 1000 * (Number(res.headers()["x-retry-after"]) || 5)));
      }
      return false;
    };
    if (await signIn(DEMO_PASSWORD)) return;
    if (!(await signIn(NEW_PASSWORD))) throw new Error(`neither the demo password nor ${NEW_PASSWORD} signs ${EMAIL} in: restore it by hand`);
    for (let attempt = 0; attempt < 5; attempt++) {
      const res = await api.post("/api/auth/change-password", {
        data: { currentPassword: NEW_PASSWORD, newPassword: DEMO_PASSWORD, revokeOtherSessions: true },
      });
      if (res.ok()) return;
      if (res.status() !== 429) throw new Error(`restoring ${EMAIL}'s demo password failed: HTTP ${res.status()} ${await res.text()}`);
      await new Promise((r) => setTimeout(r, 1000 * (Number(res.headers()["x-retry-after"]) || 5)));
    }
    throw new Error(`restoring ${EMAIL}'s demo password was rate-limited five times`);
  } finally {
    await api.dispose();
  }
}

test.describe.configure({ mode: "serial" });
test.afterAll(restoreDemoPassword);

test("GET /account - signed out, it sends you to sign in and back to your account", async ({ page }) => {
  await page.goto("/account");
  await expect(page).toHaveURL(/\/sign-in\?next=(%2F|\/)account$/);
  await fillSignIn(page, DEMO_PASSWORD);
  await expect(page).toHaveURL(/\/account$/);
  await expect(page.getByRole("heading", { level: 1, name: "Your account" })).toBeVisible();
  await page.context().close();
});

test("user2: change the password in one browser — field errors first — and the other browser is signed out", async ({ browser }) => {
  test.setTimeout(90_000);
  const first = await signIn(browser);
  const second = await signIn(browser);

  // The header's Account link opens the account page: who you are.
  await first.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Account" }).click();
  await expect(first).toHaveURL(/\/account$/);
  await expect(first.getByRole("heading", { level: 1, name: "Your account" })).toBeVisible();
  await expect(first.getByTestId("account-name")).toHaveText("Ulf Second-User");
  await expect(first.getByTestId("account-email")).toHaveText(EMAIL);
  await expect(first.getByTestId("account-role")).toContainText("User");
  await expect(first.getByTestId("other-sessions-count")).toContainText(/also signed in on \d+ other browsers?/);
  await first.waitForLoadState("networkidle");
  await shot(first, "overview");

  // Errors first. A wrong current password: the server refuses it, the field says so, focus goes there.
  const form = first.getByTestId("change-password-form");
  await changePassword(first, "not-my-password", NEW_PASSWORD);
  await expect(form.getByTestId("field-error-current")).toHaveText("That is not your current password. Nothing was changed.");
  await expect(form.getByLabel("Current password")).toBeFocused();
  await expect(form.getByLabel("Current password")).toHaveAttribute("aria-invalid", "true");
  await expect(form.getByTestId("change-password-status")).toHaveText("");
  await shot(first, "error-wrong-current");

  // Too short (checked before anything is sent; Better Auth refuses it too).
  await changePassword(first, DEMO_PASSWORD, "short");
  await expect(form.getByTestId("field-error-next")).toHaveText("Use at least 8 characters (this one has 5).");
  await expect(form.getByLabel("New password", { exact: true })).toBeFocused();
  await expect(form.getByTestId("field-error-current")).toHaveCount(0);
  await shot(first, "error-too-short");

  // The confirmation does not match.
  await changePassword(first, DEMO_PASSWORD, NEW_PASSWORD, `${NEW_PASSWORD}!`);
  await expect(form.getByTestId("field-error-confirm")).toHaveText("The two new passwords do not match; type the new password again.");
  await expect(form.getByLabel("Confirm new password")).toBeFocused();
  await expect(form.getByTestId("field-error-next")).toHaveCount(0);
  await shot(first, "error-mismatch");

  // Typing in the field clears its error.
  await form.getByLabel("Confirm new password").fill(NEW_PASSWORD);
  await expect(form.getByTestId("field-error-confirm")).toHaveCount(0);

  // The change itself, from the keyboard: Enter submits.
  await form.getByLabel("Confirm new password").press("Enter");
  await expect(form.getByTestId("change-password-status")).toHaveText("Password changed; every other browser was signed out.");
  await expect(form.getByLabel("Current password")).toHaveValue("");
  await expect(first.getByTestId("other-sessions-count")).toHaveText("You are not signed in anywhere else.");
  // A click before hydration must never have put a password in the address bar.
  expect(first.url()).not.toContain("password");
  await shot(first, "changed");

  // This browser is still signed in after a reload.
  await first.reload();
  await expect(first.getByTestId("account-email")).toHaveText(EMAIL);

  // The other browser is signed out on its next load: /account sends it to sign in.
  await second.goto("/account");
  await expect(second).toHaveURL(/\/sign-in\?next=(%2F|\/)account$/);
  await shot(second, "other-browser-signed-out");
  // The old password no longer signs in; the new one does.
  await fillSignIn(second, DEMO_PASSWORD);
  await expect(second.locator("form").getByRole("alert")).toContainText("do not match an account");
  await fillSignIn(second, NEW_PASSWORD);
  await expect(second).toHaveURL(/\/account$/);
  await expect(second.getByTestId("account-email")).toHaveText(EMAIL);

  // From here, sign the first browser out: "Sign out of all other browsers".
  await expect(second.getByTestId("other-sessions-count")).toContainText("also signed in on 1 other browser");
  await second.getByRole("button", { name: "Sign out of all other browsers" }).click();
  await expect(second.getByTestId("other-sessions-status")).toHaveText("Signed out of 1 other browser; only this one is signed in now.");
  await expect(second.getByTestId("other-sessions-count")).toHaveText("You are not signed in anywhere else.");
  await shot(second, "signed-out-other-browsers");
  await first.reload();
  await expect(first).toHaveURL(/\/sign-in\?next=(%2F|\/)account$/);

  // Change it back to the demo password (other specs sign in with it); afterAll checks it through the API too.
  await changePassword(second, NEW_PASSWORD, DEMO_PASSWORD);
  await expect(second.getByTestId("change-password-status")).toHaveText("Password changed; every other browser was signed out.");
  await first.context().close();
  await second.context().close();
});
