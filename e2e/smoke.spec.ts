import { expect, test } from "@playwright/test";

test("GET / - renders the product name and the ways in", async ({ page }) => {
  const response = await page.goto("/");
  expect(response?.status()).toBe(200);
  await expect(page).toHaveTitle(/Stopline/);
  await expect(page.getByRole("heading", { level: 1, name: "Stopline" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Open the console" })).toHaveAttribute("href", "/console");
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API docs" })).toHaveAttribute("href", "/api-docs");
});
