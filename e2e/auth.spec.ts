// Signing in and out: the /signin form by keyboard, its messages for a wrong password and a locked account, the session
// cookie.
import path from "node:path";
import { expect, LOCKOUT_USER, signInThroughForm, test, testUser } from "./fixtures/login";
import { SCREENSHOT_DIR } from "./fixtures/test-env";

const WRONG_PASSWORD_MESSAGE = "The email or password is wrong.";
const LOCKED_MESSAGE = "Too many failed attempts; try again in 15 minutes.";

test("a person signs in with the keyboard alone and lands where they were headed", async ({ page }) => {
  const admin = testUser("admin");
  await page.goto("/signin?callbackUrl=%2Fadmin");
  await expect(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, "signin.png"), fullPage: true });

  // The email field has focus on arrival; Tab reaches the password, Enter submits.
  await expect(page.getByLabel("Email")).toBeFocused();
  await page.keyboard.type(admin.email);
  await page.keyboard.press("Tab");
  await expect(page.getByLabel("Password")).toBeFocused();
  await page.keyboard.type(admin.password);
  await page.keyboard.press("Enter");

  await expect(page).toHaveURL(/\/admin$/);
  await expect(page.getByRole("heading", { level: 1, name: "Admin" })).toBeVisible();
});

test("a link opened without a session comes back to the same page after signing in", async ({ page }) => {
  const operator = testUser("operator");
  await page.goto("/audit?subjectType=contract");
  await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Faudit%3FsubjectType%3Dcontract$/);
  await page.getByLabel("Email").fill(operator.email);
  await page.getByLabel("Password").fill(operator.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(/\/audit\?subjectType=contract$/);
  await expect(page.getByRole("heading", { level: 1, name: "Audit" })).toBeVisible();
});

test("no single sign-on button is offered when no OIDC provider is configured", async ({ page }) => {
  await page.goto("/signin");
  await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeVisible();
  await expect(page.getByRole("button", { name: /^Sign in with/ })).toHaveCount(0);
});

test("a callbackUrl on another site is ignored", async ({ page }) => {
  await signInThroughForm(page, testUser("admin"), "https://attacker.example/phish");
  await expect(page).toHaveURL((url) => url.origin !== "https://attacker.example" && url.pathname === "/");
});

test("someone already signed in who opens /signin goes straight on", async ({ page, login }) => {
  await login("operator");
  await page.goto("/signin?callbackUrl=%2Fcontracts");
  await expect(page).toHaveURL(/\/contracts$/);
});

test.describe("failed sign-ins", () => {
  // next-auth answers a refused sign-in with 401, which the browser logs as a failed resource load.
  test.use({ allowedConsoleErrors: [/status of 401/] });

  test("a wrong password says so and keeps the email", async ({ page }) => {
    const operator = testUser("operator");
    await page.goto("/signin");
    await page.getByLabel("Email").fill(operator.email);
    await page.getByLabel("Password").fill("not the password at all");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();

    await expect(page.getByRole("main").getByRole("alert")).toHaveText(WRONG_PASSWORD_MESSAGE);
    await expect(page).toHaveURL(/\/signin/);
    await expect(page.getByLabel("Email")).toHaveValue(operator.email);
    // The password is cleared and focused, ready for another try.
    await expect(page.getByLabel("Password")).toHaveValue("");
    await expect(page.getByLabel("Password")).toBeFocused();
  });

  test("five wrong passwords in a row lock the account, even against the right password", async ({ page }) => {
    const user = LOCKOUT_USER;
    await page.goto("/signin");
    const email = page.getByLabel("Email");
    const password = page.getByLabel("Password");
    const submit = page.getByRole("button", { name: "Sign in", exact: true });
    // Within the page: Next.js keeps its own (empty) role="alert" route announcer outside <main>.
    const alert = page.getByRole("main").getByRole("alert");

    for (let attempt = 1; attempt <= 4; attempt++) {
      await test.step(`wrong password ${attempt} of 5`, async () => {
        await email.fill(user.email);
        await password.fill(`wrong password number ${attempt}`);
        await submit.click();
        await expect(alert).toHaveText(WRONG_PASSWORD_MESSAGE);
        // Wait for the form to be usable again before the next attempt.
        await expect(submit).toBeEnabled();
      });
    }
    await password.fill("wrong password number 5");
    await submit.click();
    await expect(alert).toHaveText(LOCKED_MESSAGE);
    await expect(submit).toBeEnabled();

    await password.fill(user.password);
    await submit.click();
    await expect(alert).toHaveText(LOCKED_MESSAGE);
    await expect(page).toHaveURL(/\/signin/);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, "signin-locked.png"), fullPage: true });
  });
});

test("the session cookie is httpOnly and SameSite=Lax", async ({ page, context, login }) => {
  await login("viewer", { via: "form" });
  const cookies = await context.cookies();
  const session = cookies.find((cookie) => /(^|\.)next-auth\.session-token$/.test(cookie.name));
  expect(session, `session cookie among ${cookies.map((c) => c.name).join(", ")}`).toBeDefined();
  expect(session?.httpOnly).toBe(true);
  expect(session?.sameSite).toBe("Lax");
  expect(session?.path).toBe("/");
  // Scripts in the page cannot read it.
  expect(await page.evaluate(() => document.cookie)).not.toContain("session-token");
});

test("signing out ends the session and returns to /signin", async ({ page, login }) => {
  const user = await login("operator");
  await page.goto("/");
  const userMenu = page.getByRole("group", { name: "Signed-in user" });
  await expect(userMenu).toContainText(user.email);
  await expect(userMenu).toContainText("operator");
  await userMenu.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/signin/);

  // The old session no longer opens an admin-only page or the console.
  await page.goto("/admin");
  await expect(page).toHaveURL(/\/signin/);
});

test("an unauthenticated visit to / is sent to /signin", async ({ page }) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/signin/);
  await expect(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
});

test("an unauthenticated visit to /admin is sent to /signin", async ({ page }) => {
  await page.goto("/admin");
  await expect(page).toHaveURL(/\/signin/);
});
