import { expect, test, type Browser, type Page } from "@playwright/test";
import { E2E_BASE_URL } from "./env";

/**
 * The admin page (/console/admin) against the real `npm start` server on a fresh database: an admin creates a
 * worker token (shown once, works as a Bearer token, gone on reload), revokes it (then 401); creates an operator
 * account that signs in in another browser, and disables it (that browser is signed out on its next page load,
 * and sign-in is refused); the History lists the token's creation and revocation by the admin; operator and
 * support neither see the link nor open the page.
 * Screenshots: output/screenshots/admin-*.png.
 */

const PASSWORD = (role: string) => process.env.STOPLINE_DEMO_PASSWORD || `stopline-${role}-demo`;
/** The whole page; a modal dialog only in the viewport (its backdrop covers the viewport, not the full page). */
const shot = (page: Page, name: string, fullPage = true) => page.screenshot({ path: `output/screenshots/admin-${name}.png`, fullPage });
const SAME_ORIGIN = { origin: E2E_BASE_URL };
const NEW_OPERATOR = { name: "Olga Operator", email: "olga@example.com", password: "olga-initial-pw" };

async function signIn(browser: Browser, email: string, password: string, landing: RegExp = /\/console$/) {
  const context = await browser.newContext();
  const page = await context.newPage();
  // Wait for hydration: a click before it would submit the bare <form> natively (GET, password in the URL).
  await page.goto("/sign-in", { waitUntil: "networkidle" });
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(landing);
  return page;
}
const signInDemo = (browser: Browser, who: "operator" | "support" | "admin") => signIn(browser, `${who}@stopline.local`, PASSWORD(who));

// Several sign-ins and page loads per test on a shared, busy machine: more room than the default 30 s.
test.describe.configure({ mode: "serial", timeout: 90_000 });

let admin: Page;
let workerToken = "";
let operatorPage: Page;

test.afterAll(async () => {
  await admin?.context().close();
  await operatorPage?.context().close();
});

test("signed out: /console/admin shows the sign-in gate", async ({ page }) => {
  await page.goto("/console/admin");
  await expect(page.getByRole("heading", { level: 1, name: "Sign in to the console" })).toBeVisible();
  await expect(page.getByText("Accounts and API tokens are administered in the console")).toBeVisible();
  await shot(page, "signed-out");
  // People sign in with their account right here (the API token is the secondary way in).
  const entry = page.getByTestId("entry-sign-in");
  await expect(entry.getByLabel("Email")).toBeVisible();
  await expect(entry.getByLabel("Password")).toBeVisible();
  await expect(entry.getByText("Sign in with an API token instead")).toBeVisible();
  await expect(page.getByLabel("Admin token")).toBeHidden();
  expect((await page.request.get("/api/accounts")).status()).toBe(401);
});

test("admin: the page's loading and error states, then accounts and an empty token list", async ({ browser }) => {
  admin = await signInDemo(browser, "admin");
  await expect(admin.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Accounts & tokens" })).toBeVisible();

  // Loading: hold the accounts answer until the screenshot is taken.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await admin.route(
    "**/api/accounts",
    async (route) => {
      await held;
      await route.continue();
    },
    { times: 1 },
  );
  await admin.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Accounts & tokens" }).click();
  await expect(admin).toHaveURL(/\/console\/admin$/);
  await expect(admin.getByText("Loading accounts…")).toBeVisible();
  await shot(admin, "loading");
  release();

  await expect(admin.getByRole("heading", { level: 1, name: "Accounts & tokens" })).toBeVisible();
  const rows = admin.getByTestId("account-row");
  await expect(rows).toHaveCount(5); // the demo accounts
  const me = rows.filter({ has: admin.getByText("admin@stopline.local") });
  await expect(me).toContainText("(you)");
  await expect(me).toContainText("You cannot disable your own account.");
  await expect(me.getByRole("button", { name: /Disable/ })).toHaveCount(0);
  // The e2e server runs with a bootstrap token: it is live, so the page says so — never "No API tokens yet." (issue 20, item 7).
  await expect(admin.getByTestId("tokens-section").getByTestId("bootstrap-token")).toContainText("The bootstrap token is active");
  await expect(admin.getByTestId("tokens-section").getByText("No API tokens yet.")).toHaveCount(0);
  await expect(admin.getByTestId("history-section").getByText("No administrative changes yet.")).toBeVisible();
  await shot(admin, "loaded");

  // Error: the token list fails once; the page says so and offers a retry that works.
  await admin.route("**/api/tokens", (route) =>
    route.request().method() === "GET"
      ? route.fulfill({ status: 500, json: { error: { code: "internal", message: "internal error (details are in the server log)" } } })
      : route.continue(),
  );
  await admin.reload();
  const failed = admin.getByTestId("tokens-section").getByRole("alert");
  await expect(failed).toContainText("Could not load the API tokens", { timeout: 15_000 });
  await shot(admin, "tokens-error");
  await admin.unroute("**/api/tokens");
  await admin.getByTestId("tokens-section").getByRole("button", { name: "Try again" }).click();
  // The e2e server runs with a bootstrap token: it is live, so the page says so — never "No API tokens yet." (issue 20, item 7).
  await expect(admin.getByTestId("tokens-section").getByTestId("bootstrap-token")).toContainText("The bootstrap token is active");
  await expect(admin.getByTestId("tokens-section").getByText("No API tokens yet.")).toHaveCount(0);
});

test("admin: creates a worker token, shown once; it works as a Bearer token; a reload does not show it again", async () => {
  const section = admin.getByTestId("tokens-section");
  // Bad input first: an empty name is refused next to the field, nothing is created.
  await section.getByRole("button", { name: "Create token" }).click();
  await expect(section.getByTestId("field-error-name")).toContainText("Give the token a name");
  await expect(section.getByLabel("Name")).toBeFocused();
  await shot(admin, "token-form-error");

  await section.getByLabel("Name").fill("e2e worker");
  await section.getByRole("radio", { name: /Worker/ }).check();
  await section.getByRole("button", { name: "Create token" }).click();
  const box = admin.getByTestId("new-token");
  await expect(box).toBeVisible();
  await expect(box).toContainText("You will not see it again.");
  workerToken = await box.getByTestId("new-token-value").inputValue();
  expect(workerToken).toMatch(/^stl_/);
  await expect(admin.getByTestId("announcer")).toContainText("Copy it now");
  await expect(section.getByTestId("token-row")).toHaveCount(1);
  await expect(section.getByTestId("token-row").first()).toContainText(workerToken.slice(0, 8));
  await expect(section.getByTestId("token-row").first()).not.toContainText(workerToken.slice(8, 20));
  await shot(admin, "token-created");

  // The token works on a worker route, from outside the browser.
  const claim = await admin.request.post("/api/workers/claim", { data: { workerId: "e2e-worker" }, headers: { authorization: `Bearer ${workerToken}` } });
  expect(claim.status()).toBe(200);
  expect(await claim.json()).toEqual({ workItem: null });

  await admin.reload();
  await expect(admin.getByRole("heading", { level: 1, name: "Accounts & tokens" })).toBeVisible();
  await expect(section.getByTestId("token-row")).toHaveCount(1);
  await expect(admin.getByTestId("new-token")).toHaveCount(0);
  expect(await admin.content()).not.toContain(workerToken);
  const row = section.getByTestId("token-row").first();
  await expect(row).toContainText("worker");
  await expect(row).toContainText("Active");
  await expect(row).not.toContainText("never"); // last used: the claim above
  await shot(admin, "token-after-reload");
});

test("admin: revokes the token after a confirmation (keyboard); it gets 401 at once", async () => {
  const section = admin.getByTestId("tokens-section");
  const revoke = section.getByRole("button", { name: "Revoke the token e2e worker" });
  await revoke.focus();
  await admin.keyboard.press("Enter");
  const dialog = admin.getByRole("dialog", { name: "Revoke the token “e2e worker”?" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await shot(admin, "token-revoke-confirm", false);
  // Escape cancels: nothing is revoked, focus returns to the button.
  await admin.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(revoke).toBeFocused();
  expect(
    (await admin.request.post("/api/workers/claim", { data: { workerId: "e2e-worker" }, headers: { authorization: `Bearer ${workerToken}` } })).status(),
  ).toBe(200);

  await admin.keyboard.press("Enter");
  await expect(dialog).toBeVisible();
  await admin.keyboard.press("Tab");
  await expect(dialog.getByRole("button", { name: "Revoke token" })).toBeFocused();
  await admin.keyboard.press("Enter");
  await expect(section.getByTestId("tokens-notice")).toContainText("revoked. It no longer authenticates.");
  await expect(section.getByTestId("tokens-notice")).toBeFocused();
  const row = section.getByTestId("token-row").first();
  await expect(row).toHaveAttribute("data-revoked", "true");
  await expect(row).toContainText("Revoked");
  await expect(row.getByRole("button")).toHaveCount(0);
  await shot(admin, "token-revoked");

  const refused = await admin.request.post("/api/workers/claim", { data: { workerId: "e2e-worker" }, headers: { authorization: `Bearer ${workerToken}` } });
  expect(refused.status()).toBe(401);
  // Revoking twice is a clear 409.
  const id = await row.getAttribute("data-token-id");
  const again = await admin.request.delete(`/api/tokens/${id}`, { headers: SAME_ORIGIN });
  expect(again.status()).toBe(409);
  expect((await again.json()).error.message).toMatch(/already revoked/);
});

test("admin: the History shows the token created and revoked, by the admin, without the token", async () => {
  const history = admin.getByTestId("history-section");
  // The history fails to load: the section says so and its retry works.
  await admin.route("**/api/admin/history?*", (route) =>
    route.fulfill({ status: 500, json: { error: { code: "internal", message: "internal error (details are in the server log)" } } }),
  );
  await admin.reload();
  await expect(history.getByRole("alert")).toContainText("Could not load the history", { timeout: 15_000 });
  await history.scrollIntoViewIfNeeded();
  await shot(admin, "history-error");
  await admin.unroute("**/api/admin/history?*");
  await history.getByRole("button", { name: "Try again" }).click();

  const rows = history.getByTestId("history-row");
  await expect(rows).toHaveCount(2);
  // Newest first: the revocation, then the creation — each by the admin, on the "e2e worker" token.
  await expect(rows.nth(0)).toHaveAttribute("data-type", "token.revoked");
  await expect(rows.nth(1)).toHaveAttribute("data-type", "token.created");
  for (const row of [rows.nth(0), rows.nth(1)]) {
    await expect(row).toContainText("admin@stopline.local");
    await expect(row.getByTestId("history-subject")).toHaveText("e2e worker");
    await expect(row).toContainText(workerToken.slice(0, 8));
  }
  await expect(rows.nth(0)).toContainText("Revoked an API token");
  await expect(rows.nth(1)).toContainText("Created an API token");
  expect(await history.innerText()).not.toContain(workerToken);
  await history.scrollIntoViewIfNeeded();
  await shot(admin, "history");
});

test("admin: creates an operator account (bad input and a taken address are explained first)", async () => {
  const section = admin.getByTestId("accounts-section");
  const form = section.getByTestId("account-form");
  await form.getByLabel("Name").fill(NEW_OPERATOR.name);
  await form.getByLabel("E-mail").fill("not-an-address");
  await form.getByLabel("Role").selectOption("operator");
  await form.getByLabel("Initial password").fill("short");
  await form.getByRole("button", { name: "Create account" }).click();
  await expect(form.getByTestId("field-error-email")).toContainText("Enter an e-mail address");
  await expect(form.getByTestId("field-error-password")).toContainText("at least 8 characters");
  await expect(form.getByLabel("E-mail")).toBeFocused();
  await shot(admin, "account-form-errors");

  await form.getByLabel("E-mail").fill("Operator@Stopline.local");
  await form.getByLabel("Initial password").fill(NEW_OPERATOR.password);
  await form.getByRole("button", { name: "Create account" }).click();
  await expect(form.getByTestId("field-error-email")).toContainText("operator@stopline.local already exists");
  await shot(admin, "account-duplicate");
  await expect(section.getByTestId("account-row")).toHaveCount(5);

  await form.getByLabel("E-mail").fill(NEW_OPERATOR.email);
  await form.getByRole("button", { name: "Create account" }).click();
  await expect(section.getByTestId("accounts-notice")).toContainText(`Account created for ${NEW_OPERATOR.name}`);
  await expect(form.getByLabel("Name")).toHaveValue("");
  const row = section.locator(`[data-email="${NEW_OPERATOR.email}"]`);
  await expect(row).toBeVisible();
  await expect(row.getByTestId("role-select")).toHaveValue("operator");
  await expect(row.getByTestId("sessions")).toContainText("0");
  await shot(admin, "account-created");
});

test("the new operator signs in in another browser; the admin sees the session", async ({ browser }) => {
  operatorPage = await signIn(browser, NEW_OPERATOR.email, NEW_OPERATOR.password);
  await expect(operatorPage.getByRole("navigation", { name: "Console" })).toBeVisible();
  await expect(operatorPage.getByRole("link", { name: "Accounts & tokens" })).toHaveCount(0);
  await operatorPage.goto("/console/review");
  await expect(operatorPage.getByRole("heading", { level: 1, name: "Review queue" })).toBeVisible();

  await admin.reload();
  const row = admin.locator(`[data-email="${NEW_OPERATOR.email}"]`);
  await expect(row.getByTestId("sessions")).toContainText("1");
});

test("admin: the last admin keeps the role (refused with an explanation); a role change is saved", async () => {
  const section = admin.getByTestId("accounts-section");
  const me = section.locator('[data-email="admin@stopline.local"]');
  await me.getByTestId("role-select").selectOption("operator");
  await me.getByRole("button", { name: /^Save the role operator/ }).click();
  await expect(section.getByTestId("accounts-notice")).toContainText("would leave no enabled admin account");
  await expect(me.getByTestId("role-select")).toHaveValue("admin");
  await shot(admin, "last-admin-refused");

  const olga = section.locator(`[data-email="${NEW_OPERATOR.email}"]`);
  await olga.getByTestId("role-select").selectOption("support");
  await expect(olga.getByRole("button", { name: "Undo" })).toBeVisible();
  await olga.getByRole("button", { name: "Undo" }).click();
  await expect(olga.getByTestId("role-select")).toHaveValue("operator");
  await olga.getByTestId("role-select").selectOption("support");
  await olga.getByRole("button", { name: /^Save the role support/ }).click();
  await expect(section.getByTestId("accounts-notice")).toContainText(`${NEW_OPERATOR.name} now has the support role`);
  await olga.getByTestId("role-select").selectOption("operator");
  await olga.getByRole("button", { name: /^Save the role operator/ }).click();
  await expect(section.getByTestId("accounts-notice")).toContainText(`${NEW_OPERATOR.name} now has the operator role`);
});

test("admin: disables the operator; that browser is signed out on its next page load and sign-in is refused; enable again", async ({ browser }) => {
  const section = admin.getByTestId("accounts-section");
  const row = section.locator(`[data-email="${NEW_OPERATOR.email}"]`);
  await row.getByRole("button", { name: `Disable ${NEW_OPERATOR.email}` }).click();
  const dialog = admin.getByRole("dialog", { name: `Disable ${NEW_OPERATOR.name}?` });
  await expect(dialog).toContainText("signed out everywhere at once (1 active session)");
  await shot(admin, "account-disable-confirm", false);
  await dialog.getByRole("button", { name: "Disable account" }).click();
  await expect(section.getByTestId("accounts-notice")).toContainText("is disabled and signed out everywhere");
  await expect(row).toHaveAttribute("data-disabled", "true");
  await expect(row).toContainText("Disabled");
  await expect(row.getByTestId("sessions")).toContainText("0");
  await shot(admin, "account-disabled");

  // The operator's browser: the next page load is signed out.
  await operatorPage.reload();
  await expect(operatorPage.getByRole("heading", { level: 1, name: "Sign in to the console" })).toBeVisible();
  await shot(operatorPage, "operator-signed-out");
  expect((await operatorPage.request.get("/api/review-items")).status()).toBe(401);
  // And signing in again is refused with the reason.
  await operatorPage.goto("/sign-in", { waitUntil: "networkidle" });
  await operatorPage.getByLabel("Email").fill(NEW_OPERATOR.email);
  await operatorPage.getByLabel("Password").fill(NEW_OPERATOR.password);
  await operatorPage.getByRole("button", { name: "Sign in" }).click();
  await expect(operatorPage.locator("form").getByRole("alert")).toContainText("This account is disabled");
  await shot(operatorPage, "operator-sign-in-refused");

  await row.getByRole("button", { name: `Enable ${NEW_OPERATOR.email}` }).click();
  await expect(section.getByTestId("accounts-notice")).toContainText("is enabled and can sign in again");
  await expect(row).not.toHaveAttribute("data-disabled", "true");
  const again = await signIn(browser, NEW_OPERATOR.email, NEW_OPERATOR.password);
  await again.context().close();
  // Each of these changes is in the History, newest first.
  const types = await admin.getByTestId("history-row").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-type")));
  expect(types.slice(0, 5)).toEqual(["account.enabled", "account.disabled", "account.role_changed", "account.role_changed", "account.created"]);
  await shot(admin, "history-accounts");
});

for (const who of ["operator", "support"] as const) {
  test(`${who}: no "Accounts & tokens" link, /console/admin refuses, the API refuses`, async ({ browser }) => {
    const page = await signInDemo(browser, who);
    await expect(page.getByRole("navigation", { name: "Console" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Accounts & tokens" })).toHaveCount(0);
    await page.goto("/console/admin");
    await expect(page.getByRole("heading", { level: 1, name: "Admins only" })).toBeVisible();
    await expect(page.getByTestId("admins-only")).toContainText(`with the ${who} role`);
    await expect(page.getByTestId("accounts-section")).toHaveCount(0);
    await shot(page, `${who}-refused`);
    expect((await page.request.get("/api/accounts")).status()).toBe(403);
    expect((await page.request.get("/api/tokens")).status()).toBe(403);
    expect((await page.request.post("/api/tokens", { data: { name: "x", role: "admin" }, headers: SAME_ORIGIN })).status()).toBe(403);
    await page.context().close();
  });
}
