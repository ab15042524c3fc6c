import { expect, type APIRequestContext, type Browser } from "@playwright/test";
import { demoPassword } from "./sign-in";

const AUTH = { Authorization: `Bearer ${process.env.STOPLINE_BOOTSTRAP_TOKEN ?? ""}` };

/**
 * Lifts every kill switch still on (the admin token asks, the demo operator confirms: two people). Specs that turn a
 * switch on call it when they end, pass or fail — one spec failing half-way must not leave the export refused for
 * every spec after it on the shared server.
 */
export async function liftEveryIncident(request: APIRequestContext, browser: Browser) {
  const listed = (await (await request.get("/api/incidents", { headers: AUTH })).json()) as { incidents: { incident: { id: string }; on: boolean }[] };
  const on = listed.incidents.filter((x) => x.on).map((x) => x.incident.id);
  if (!on.length) return;
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto("/sign-in");
    await page.getByLabel("Email").fill("operator@stopline.local");
    await page.getByLabel("Password").fill(demoPassword("operator"));
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/console$/, { timeout: 20_000 });
    const origin = new URL(page.url()).origin;
    for (const id of on) {
      await request.post(`/api/incidents/${id}/lift`, { headers: AUTH, data: { reason: "end of the spec: lifted so later specs may run the tool" } });
      const confirmed = await page.request.post(`/api/incidents/${id}/lift/confirm`, { data: {}, headers: { Origin: origin } });
      expect(confirmed.status(), await confirmed.text()).toBe(200);
    }
  } finally {
    await context.close();
  }
}
