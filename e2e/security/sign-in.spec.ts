// Sign-in over HTTP: fifty concurrent guesses at next-auth's credentials endpoint reach the password check only five
// times, an unknown email gets the same answers, and a password reset, a role change or a sign-out sends the person's
// other browser back to sign-in.
import type { APIRequestContext, Browser, Page } from "@playwright/test";
import { ensureUser, expect, signInThroughApi, test, TEST_USER_PASSWORD, type TestUser } from "../fixtures/login";
import { E2E_BASE_URL } from "../fixtures/test-env";

/** A suffix that keeps emails unique if the suite runs twice against one database. */
const RUN = Date.now().toString(36);
const GUESSES = 50;
const MAX_FAILED_SIGN_INS = 5;

function personFor(purpose: string): TestUser {
  return { email: `${purpose}-${RUN}@opledger.test`, password: TEST_USER_PASSWORD, role: "viewer" };
}

/** Sends one sign-in; returns next-auth's error code ("invalid", "locked") or "ok". */
async function attempt(request: APIRequestContext, csrfToken: string, email: string, password: string) {
  const response = await request.post("/api/auth/callback/credentials", {
    form: { csrfToken, email, password, callbackUrl: "/", json: "true" },
    failOnStatusCode: false,
  });
  const body = (await response.json()) as { url?: string };
  return new URL(body.url ?? "/", E2E_BASE_URL).searchParams.get("error") ?? "ok";
}

async function csrfTokenOf(request: APIRequestContext): Promise<string> {
  const response = await request.get("/api/auth/csrf");
  expect(response.ok(), "GET /api/auth/csrf").toBe(true);
  return ((await response.json()) as { csrfToken: string }).csrfToken;
}

function tally(answers: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const answer of answers) counts[answer] = (counts[answer] ?? 0) + 1;
  return counts;
}

/** Fires all guesses at once from one client, each with a different wrong password. */
async function guessAtOnce(request: APIRequestContext, email: string): Promise<string[]> {
  const csrfToken = await csrfTokenOf(request);
  return Promise.all(Array.from({ length: GUESSES }, (_, i) => attempt(request, csrfToken, email, `wrong guess ${i}`)));
}

/** The failed sign-ins audited for an email: one per guess that reached a password check. */
async function auditedFailures(admin: Page, email: string): Promise<string[]> {
  const query = new URLSearchParams({ subjectType: "user", subjectId: email, limit: "200" });
  const response = await admin.request.get(`/api/console/audit?${query}`);
  expect(response.ok(), "reading the audit log").toBe(true);
  const page = (await response.json()) as { items: { action: string }[] };
  return page.items
    .map((event) => event.action)
    .filter((action) => action === "user.sign_in_failed" || action === "user.locked_out");
}

test.describe("fifty concurrent guesses over HTTP", () => {
  test.setTimeout(180_000);

  test("lock a known account after five password checks, and the right password is then refused too", async ({
    page,
    login,
    playwright,
  }) => {
    const person = personFor("burst");
    await ensureUser(person);
    const attacker = await playwright.request.newContext({ baseURL: E2E_BASE_URL });

    const answers = await guessAtOnce(attacker, person.email);
    expect(tally(answers)).toEqual({ invalid: MAX_FAILED_SIGN_INS - 1, locked: GUESSES - MAX_FAILED_SIGN_INS + 1 });
    expect(await attempt(attacker, await csrfTokenOf(attacker), person.email, person.password)).toBe("locked");
    await attacker.dispose();

    await login("admin");
    const failures = await auditedFailures(page, person.email);
    expect(failures, "guesses that reached a password check").toHaveLength(MAX_FAILED_SIGN_INS);
    expect(failures.filter((action) => action === "user.locked_out")).toHaveLength(1);
  });

  test("get the same answers for an email that has no account", async ({ playwright }) => {
    const attacker = await playwright.request.newContext({ baseURL: E2E_BASE_URL });
    const answers = await guessAtOnce(attacker, `nobody-${RUN}@opledger.test`);
    expect(tally(answers)).toEqual({ invalid: MAX_FAILED_SIGN_INS - 1, locked: GUESSES - MAX_FAILED_SIGN_INS + 1 });
    await attacker.dispose();
  });
});

/** A second browser signed in as `person`, showing the console: the session that the change must end. */
async function otherSession(browser: Browser, person: TestUser) {
  const context = await browser.newContext({ baseURL: E2E_BASE_URL });
  const other = await context.newPage();
  await signInThroughApi(other, person);
  await other.goto("/");
  await expect(other).not.toHaveURL(/\/signin/);
  await expect(other.getByRole("group", { name: "Signed-in user" })).toContainText(person.email);
  return {
    async expectSentToSignIn() {
      await other.goto("/");
      await expect(other).toHaveURL(/\/signin/);
      await expect(other.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
    },
    close: () => context.close(),
  };
}

function userRow(page: Page, email: string) {
  return page.getByTestId("user-row").filter({ has: page.getByText(email, { exact: true }) });
}

test.describe("changes that end a person's other sessions", () => {
  // Two browsers, a user created through the CLI and an admin's dialog: more than the default 30 s on a busy machine.
  test.setTimeout(120_000);

  test("a password reset by an admin", async ({ page, login, browser }) => {
    const person = personFor("reset");
    await ensureUser(person);
    const other = await otherSession(browser, person);

    await login("admin");
    await page.goto("/admin");
    await userRow(page, person.email)
      .getByRole("button", { name: `Reset password of ${person.email}` })
      .click();
    const dialog = page.getByRole("dialog", { name: `Reset password of ${person.email}` });
    await dialog.getByLabel("New password").fill("a brand new passphrase");
    await dialog.getByRole("button", { name: "Set new password" }).click();
    await expect(dialog).toBeHidden();

    await other.expectSentToSignIn();
    await other.close();
  });

  test("a role change by an admin", async ({ page, login, browser }) => {
    const person = personFor("role");
    await ensureUser(person);
    const other = await otherSession(browser, person);

    await login("admin");
    await page.goto("/admin");
    const row = userRow(page, person.email);
    await row.getByRole("button", { name: `Change role of ${person.email}` }).click();
    const dialog = page.getByRole("dialog", { name: `Change role of ${person.email}` });
    await dialog.getByRole("radio", { name: /^operator/ }).check();
    await dialog.getByRole("button", { name: "Change role" }).click();
    await expect(dialog).toBeHidden();
    await expect(row).toContainText("operator");

    await other.expectSentToSignIn();
    await other.close();
  });

  test.describe("signing out", () => {
    // The shell's counts poll may be in flight when the session ends: its 401 is the session having ended, and the
    // browser logs any failed load.
    test.use({ allowedConsoleErrors: [/status of 401 .*\/api\/console\/counts/] });

    test("signing out in one browser signs the person out everywhere", async ({ page, browser }) => {
      const person = personFor("signout");
      await ensureUser(person);
      const other = await otherSession(browser, person);

      await signInThroughApi(page, person);
      await page.goto("/");
      await page.getByRole("group", { name: "Signed-in user" }).getByRole("button", { name: "Sign out" }).click();
      await expect(page).toHaveURL(/\/signin/);

      await other.expectSentToSignIn();
      await other.close();
      // Signing in again works, and gives a new session.
      await signInThroughApi(page, person);
      await page.goto("/");
      await expect(page).not.toHaveURL(/\/signin/);
    });
  });
});

test("an ended session gets nothing from /api/auth/session: the endpoint checks the session version too", async ({
  browser,
}) => {
  const person = personFor("ended-session");
  await ensureUser(person);
  const context = await browser.newContext({ baseURL: E2E_BASE_URL });
  try {
    const page = await context.newPage();
    await signInThroughApi(page, person);
    const live = (await (await context.request.get("/api/auth/session")).json()) as { user?: { email?: string } };
    expect(live.user?.email).toBe(person.email);
    const ended = await context.cookies();

    const out = await context.request.post("/api/auth/signout", {
      form: { csrfToken: await csrfTokenOf(context.request), callbackUrl: "/", json: "true" },
      maxRedirects: 0,
    });
    expect(out.status()).toBe(200);
    // The ended token, sent again as a stolen or cached cookie would be: no name, no email, no id.
    await context.addCookies(ended);
    const answer = await context.request.get("/api/auth/session");
    expect(answer.status()).toBe(200);
    expect(await answer.json()).toEqual({});
  } finally {
    await context.close();
  }
});

test.describe("sign-in callbacks: a path on this console or nothing", () => {
  test.setTimeout(120_000);
  const origin = new URL(E2E_BASE_URL).origin;
  /** Every form the red team sent (issue #27), each meaning another host once a browser resolves it. */
  const FORMS = [
    "/.//evil.example",
    "/..//evil.example",
    "/a/..//evil.example",
    "/%2e//evil.example",
    "/%2E%2E//evil.example",
    "//evil.example",
    "/\\evil.example",
    "https://evil.example/",
    `${origin}//evil.example`,
    `${origin}/.//evil.example`,
  ];
  const staysHome = (location: string | undefined) => new URL(location ?? "", `${origin}/signin`).origin === origin;

  test("with a session, /signin sends the person to this console, never to another host", async ({ browser }) => {
    const person = personFor("callback-session");
    await ensureUser(person);
    const context = await browser.newContext({ baseURL: E2E_BASE_URL });
    try {
      await signInThroughApi(await context.newPage(), person);
      for (const form of FORMS) {
        const response = await context.request.get(`/signin?callbackUrl=${encodeURIComponent(form)}`, {
          maxRedirects: 0,
        });
        expect(response.status(), form).toBe(307);
        const location = response.headers().location;
        expect(location, form).not.toMatch(/^(\/\/|\/\\|[a-z][a-z0-9+.-]*:)/i);
        expect(staysHome(location), `${form} → ${location}`).toBe(true);
      }
    } finally {
      await context.close();
    }
  });

  test("without a session, the form keeps no foreign callback, and next-auth's own routes keep none either", async ({
    browser,
    playwright,
  }) => {
    const anonymous = await playwright.request.newContext({ baseURL: E2E_BASE_URL });
    try {
      for (const form of FORMS) {
        const page = await anonymous.get(`/signin?callbackUrl=${encodeURIComponent(form)}`, { maxRedirects: 0 });
        expect(page.status(), form).toBe(200);
        // The callback the form is given, as the page's RSC payload carries the SignInForm's props.
        const given = /\\"callbackUrl\\":\\"(.*?)\\"/.exec(await page.text())?.[1];
        expect(given, `${form}: the form's callback`).toBe("/");
        // next-auth's sign-in route sends the browser to /signin with the callback it kept: only this console.
        const chained = await anonymous.get(`/api/auth/signin/credentials?callbackUrl=${encodeURIComponent(form)}`, {
          maxRedirects: 0,
        });
        const location = chained.headers().location ?? "";
        expect(staysHome(location), `next-auth's sign-in route with ${form} → ${location}`).toBe(true);
        const kept = new URL(location, origin).searchParams.get("callbackUrl") ?? "/";
        expect(staysHome(kept), `next-auth kept ${kept}`).toBe(true);
        expect(kept, form).not.toContain("evil.example");
      }
    } finally {
      await anonymous.dispose();
    }
    // And a real sign-in through the form, from a crafted link: the browser lands on this console.
    const person = personFor("callback-form");
    await ensureUser(person);
    const context = await browser.newContext({ baseURL: E2E_BASE_URL });
    try {
      const page = await context.newPage();
      await page.goto(`/signin?callbackUrl=${encodeURIComponent("/.//evil.example")}`);
      await page.getByLabel("Email").fill(person.email);
      await page.getByLabel("Password").fill(person.password);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await expect(page).not.toHaveURL(/\/signin/);
      expect(new URL(page.url()).origin).toBe(origin);
      const credentials = await context.request.post("/api/auth/callback/credentials", {
        form: {
          csrfToken: await csrfTokenOf(context.request),
          email: person.email,
          password: person.password,
          callbackUrl: "//evil.example",
          json: "true",
        },
      });
      const { url } = (await credentials.json()) as { url?: string };
      expect(staysHome(url), `next-auth's answer after sign-in: ${url}`).toBe(true);
    } finally {
      await context.close();
    }
  });
});
