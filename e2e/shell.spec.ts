// The app starts and the console shell renders for a signed-in viewer: every navigation entry opens its page, which is
// screenshotted.
import path from "node:path";
import { expect, test } from "./fixtures/login";
import { SCREENSHOT_DIR } from "./fixtures/test-env";

test.beforeEach(async ({ login }) => {
  await login("viewer");
});

const NAV_PAGES = ["Ledger", "Unknowns", "Approvals", "Contracts", "Dependencies", "Metrics", "Audit"] as const;

// Anchored: a link's accessible name also carries its count badge, e.g. "Unknowns 3 unknown operations".
const linkName = (label: string) => new RegExp(`^${label}\\b`);

test("the left navigation links every console page", async ({ page }) => {
  await page.goto("/");
  const nav = page.getByRole("navigation", { name: "Console" });
  for (const label of NAV_PAGES) {
    await expect(nav.getByRole("link", { name: linkName(label) })).toBeVisible();
  }
});

test("clicking Unknowns opens the Unknowns page", async ({ page }) => {
  await page.goto("/");
  await page
    .getByRole("navigation", { name: "Console" })
    .getByRole("link", { name: linkName("Unknowns") })
    .click();
  await expect(page).toHaveURL(/\/unknowns$/);
  await expect(page.getByRole("heading", { level: 1, name: "Unknowns" })).toBeVisible();
});

test("every navigation page renders and is screenshotted", async ({ page }) => {
  await page.goto("/");
  const nav = page.getByRole("navigation", { name: "Console" });
  for (const label of NAV_PAGES) {
    await test.step(label, async () => {
      const link = nav.getByRole("link", { name: linkName(label) });
      await link.click();
      await expect(link).toHaveAttribute("aria-current", "page");
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${label.toLowerCase()}.png`), fullPage: true });
    });
  }
});
