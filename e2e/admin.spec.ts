// The admin page: users and API keys managed through dialogs, each change checked where it takes effect (sign-in, the
// API).
import path from "node:path";
import type { APIRequestContext, Locator, Page } from "@playwright/test";
import { expect, test, TEST_USER_PASSWORD } from "./fixtures/login";
import { E2E_BASE_URL, SCREENSHOT_DIR } from "./fixtures/test-env";

/** The console scrolls inside <main>, so a full-page screenshot needs a viewport tall enough for the whole page. */
async function screenshot(page: Page, name: string): Promise<void> {
  const viewport = page.viewportSize();
  const height = await page.locator("main").evaluate((main) => main.scrollHeight + main.getBoundingClientRect().top);
  await page.setViewportSize({
    width: viewport?.width ?? 1280,
    height: Math.max(viewport?.height ?? 720, Math.ceil(height)),
  });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, name), fullPage: true });
  if (viewport) await page.setViewportSize(viewport);
}

/** A suffix that keeps names unique if the suite runs twice against one database. */
const RUN = Date.now().toString(36);

function userRow(page: Page, email: string): Locator {
  return page.getByTestId("user-row").filter({ has: page.getByText(email, { exact: true }) });
}

/** Creates a user through the Create user dialog and waits for its row. */
async function createUserThroughDialog(
  page: Page,
  user: { email: string; name: string; role: string; password: string },
): Promise<void> {
  await page.getByRole("button", { name: "Create user" }).click();
  const dialog = page.getByRole("dialog", { name: "Create user" });
  await dialog.getByLabel("Email").fill(user.email);
  await dialog.getByLabel("Name").fill(user.name);
  await dialog.getByRole("radio", { name: new RegExp(`^${user.role}`) }).check();
  await dialog.getByLabel("Initial password").fill(user.password);
  await dialog.getByRole("button", { name: "Create user" }).click();
  await expect(dialog).toBeHidden();
  await expect(userRow(page, user.email)).toBeVisible();
}

async function canSignIn(request: APIRequestContext, email: string, password: string): Promise<boolean> {
  const csrf = (await (await request.get("/api/auth/csrf")).json()) as { csrfToken: string };
  const response = await request.post("/api/auth/callback/credentials", {
    form: { csrfToken: csrf.csrfToken, email, password, callbackUrl: "/", json: "true" },
  });
  return response.ok();
}

test("an admin creates a user, with the password rule checked first, and that user can sign in", async ({
  page,
  login,
  playwright,
}) => {
  await login("admin");
  await page.goto("/admin");
  await expect(page.getByRole("heading", { level: 1, name: "Admin" })).toBeVisible();

  const email = `new-operator-${RUN}@opledger.test`;
  await page.getByRole("button", { name: "Create user" }).click();
  const dialog = page.getByRole("dialog", { name: "Create user" });
  await dialog.getByLabel("Email").fill(email);
  await dialog.getByLabel("Name").fill("New Operator");
  await dialog.getByRole("radio", { name: /^operator/ }).check();
  await dialog.getByLabel("Initial password").fill("too short");
  await dialog.getByRole("button", { name: "Create user" }).click();
  await expect(dialog.getByText("Use at least 12 characters.")).toBeVisible();
  await expect(dialog.getByLabel("Initial password")).toHaveAttribute("aria-invalid", "true");

  await dialog.getByLabel("Initial password").fill(TEST_USER_PASSWORD);
  await dialog.getByRole("button", { name: "Create user" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("status").filter({ hasText: `Created ${email} as operator.` })).toBeVisible();
  const row = userRow(page, email);
  await expect(row).toContainText("New Operator");
  await expect(row).toContainText("operator");
  await expect(row).toContainText("Active");

  // A second user with the same email is refused on the email field.
  await page.getByRole("button", { name: "Create user" }).click();
  await dialog.getByLabel("Email").fill(email.toUpperCase());
  await dialog.getByLabel("Name").fill("Duplicate");
  await dialog.getByLabel("Initial password").fill(TEST_USER_PASSWORD);
  await dialog.getByRole("button", { name: "Create user" }).click();
  await expect(dialog.getByText("A user with this email already exists.")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();

  const fresh = await playwright.request.newContext({ baseURL: E2E_BASE_URL });
  expect(await canSignIn(fresh, email, TEST_USER_PASSWORD)).toBe(true);
  await fresh.dispose();
});

test("an admin changes a user's role, resets their password, disables and enables them", async ({
  page,
  login,
  playwright,
}) => {
  const person = {
    email: `managed-${RUN}@opledger.test`,
    name: "Managed Person",
    password: TEST_USER_PASSWORD,
    role: "viewer",
  };
  await login("admin");
  await page.goto("/admin");
  await createUserThroughDialog(page, person);
  const row = userRow(page, person.email);
  await expect(row).toContainText("viewer");

  await test.step("change role to operator", async () => {
    await row.getByRole("button", { name: `Change role of ${person.email}` }).click();
    const dialog = page.getByRole("dialog", { name: `Change role of ${person.email}` });
    await dialog.getByRole("radio", { name: /^operator/ }).check();
    await dialog.getByRole("button", { name: "Change role" }).click();
    await expect(dialog).toBeHidden();
    await expect(row).toContainText("operator");
  });

  const newPassword = "a brand new passphrase";
  await test.step("reset the password", async () => {
    await row.getByRole("button", { name: `Reset password of ${person.email}` }).click();
    const dialog = page.getByRole("dialog", { name: `Reset password of ${person.email}` });
    await dialog.getByLabel("New password").fill(newPassword);
    await dialog.getByRole("button", { name: "Set new password" }).click();
    await expect(dialog).toBeHidden();
  });

  const api = await playwright.request.newContext({ baseURL: E2E_BASE_URL });
  expect(await canSignIn(api, person.email, newPassword), "the new password works").toBe(true);

  await test.step("disable, which asks for a reason", async () => {
    await row.getByRole("button", { name: `Disable ${person.email}` }).click();
    const dialog = page.getByRole("dialog", { name: `Disable ${person.email}?` });
    await expect(dialog).toContainText("cannot sign in");
    await dialog.getByRole("button", { name: "Disable user" }).click();
    await expect(dialog.getByText("Give a reason; it is recorded in the audit trail.")).toBeVisible();
    await dialog.getByLabel("Reason").fill("left the on-call rota");
    await dialog.getByRole("button", { name: "Disable user" }).click();
    await expect(dialog).toBeHidden();
    await expect(row).toContainText("Disabled");
  });
  const other = await playwright.request.newContext({ baseURL: E2E_BASE_URL });
  expect(await canSignIn(other, person.email, newPassword), "a disabled user cannot sign in").toBe(false);

  await test.step("enable again", async () => {
    await row.getByRole("button", { name: `Enable ${person.email}` }).click();
    const dialog = page.getByRole("dialog", { name: `Enable ${person.email}?` });
    await dialog.getByRole("button", { name: "Enable user" }).click();
    await expect(dialog).toBeHidden();
    await expect(row).toContainText("Active");
  });
  expect(await canSignIn(other, person.email, newPassword), "enabled again").toBe(true);
  await api.dispose();
  await other.dispose();
});

test("an admin can neither disable nor demote themselves", async ({ page, login }) => {
  const admin = await login("admin");
  await page.goto("/admin");
  const row = userRow(page, admin.email);
  await expect(row).toContainText("(you)");

  await row.getByRole("button", { name: `Disable ${admin.email}` }).click();
  const disable = page.getByRole("dialog", { name: `Disable ${admin.email}?` });
  await disable.getByLabel("Reason").fill("testing the rule");
  await disable.getByRole("button", { name: "Disable user" }).click();
  await expect(disable.getByRole("alert")).toHaveText(
    "You cannot disable your own account; ask another admin to do it.",
  );
  await page.keyboard.press("Escape");

  await row.getByRole("button", { name: `Change role of ${admin.email}` }).click();
  const demote = page.getByRole("dialog", { name: `Change role of ${admin.email}` });
  await demote.getByRole("radio", { name: /^viewer/ }).check();
  await demote.getByRole("button", { name: "Change role" }).click();
  await expect(demote.getByRole("alert")).toHaveText(
    "You cannot remove your own admin role; ask another admin to do it.",
  );
  await page.keyboard.press("Escape");

  await expect(row).toContainText("admin");
  await expect(row).toContainText("Active");
});

test("an API key is shown once, then only its prefix; once revoked it gets 401", async ({
  page,
  context,
  login,
  request,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: E2E_BASE_URL });
  await login("admin");
  await page.goto("/admin");

  const name = `billing-agent-${RUN}`;
  await page.getByRole("button", { name: "Create API key" }).click();
  const form = page.getByRole("dialog", { name: "Create API key" });
  await form.getByLabel("Name").fill(name);
  await expect(form.getByRole("checkbox", { name: /^agent/ })).toBeChecked();
  await form.getByRole("button", { name: "Create key" }).click();

  const shown = page.getByRole("dialog", { name: `Copy the key for ${name} now` });
  await expect(shown).toContainText("This is the only time the key is shown.");
  const key = await shown.getByLabel("API key").inputValue();
  expect(key).toMatch(/^opl_[A-Za-z0-9_-]{40,}$/);
  await shown.getByRole("button", { name: "Copy" }).click();
  await expect(shown.getByText("Copied to the clipboard.")).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
  await screenshot(page, "admin-new-api-key.png");
  await shown.getByRole("button", { name: "I have stored the key" }).click();
  await expect(shown).toBeHidden();

  const prefix = key.slice(0, 12);
  const row = page.getByTestId("api-key-row").filter({ hasText: name });
  await expect(row).toContainText(`${prefix}…`);
  await expect(row).toContainText("agent");
  await expect(row).toContainText("Active");
  // The secret is gone from the page, also after a reload.
  expect(await page.content()).not.toContain(key);
  await page.reload();
  await expect(row).toContainText(`${prefix}…`);
  expect(await page.content()).not.toContain(key);

  const withKey = { headers: { authorization: `Bearer ${key}` } };
  expect((await request.get("/api/v1/contracts", withKey)).status()).toBe(200);

  await row.getByRole("button", { name: `Revoke ${name}` }).click();
  const revoke = page.getByRole("dialog", { name: `Revoke ${name}?` });
  await expect(revoke).toContainText(`${prefix}…`);
  await expect(revoke).toContainText("cannot be undone");
  await revoke.getByLabel("Reason").fill("rotating the billing agent's key");
  await revoke.getByRole("button", { name: "Revoke key" }).click();
  await expect(revoke).toBeHidden();
  await expect(row).toContainText("Revoked");
  await expect(row.getByRole("button", { name: `Revoke ${name}` })).toHaveCount(0);

  const refused = await request.get("/api/v1/contracts", withKey);
  expect(refused.status()).toBe(401);

  await screenshot(page, "admin.png");
});

test.describe("the forbidden page", () => {
  // The page answers a real 403 (the console's pages say so before anything streams); the browser logs that response.
  test.use({ allowedConsoleErrors: [/status of 403/] });

  test("a viewer who opens /admin sees the forbidden page", async ({ page, login }) => {
    const viewer = await login("viewer");
    const response = await page.goto("/admin");
    expect(response?.status()).toBe(403);
    await expect(page.getByRole("heading", { level: 1, name: "This page needs the admin role" })).toBeVisible();
    await expect(page.getByRole("main")).toContainText(viewer.email);
    await expect(page.getByRole("table")).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Create user" })).toHaveCount(0);
    await screenshot(page, "admin-forbidden.png");
  });

  test("an operator who opens /admin sees the forbidden page too", async ({ page, login }) => {
    await login("operator");
    const response = await page.goto("/admin");
    expect(response?.status()).toBe(403);
    await expect(page.getByRole("heading", { level: 1, name: "This page needs the admin role" })).toBeVisible();
    await expect(page.getByRole("main")).toContainText("operator");
  });
});
