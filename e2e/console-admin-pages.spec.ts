// The configuration and records pages: contracts (create with validation, edit into versions with a diff, conflicts,
// roles,
// a forged save, the MCP gateway's fields, Classify from an upstream's hints), dependencies (forcing a breaker with a
// reason), the audit log with its URL filters, and the metrics charts.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { APIRequestContext, Browser, Page } from "@playwright/test";
import { E2E_DB_URL, userIdOf } from "./fixtures/api";
import { ensureUser, expect, signInThroughApi, test, testUser, type TestRole } from "./fixtures/login";
import { LedgerSeed, uniqueName } from "./fixtures/seed";
import { extraPort, ServerProcess } from "./fixtures/server-process";
import { E2E_BASE_URL, REPO_ROOT, SCREENSHOT_DIR, TEST_BOOTSTRAP_API_KEY } from "./fixtures/test-env";

// Specs share one server and database: every test makes tools and dependencies of its own.

interface ContractAnswer {
  tool: string;
  version: number;
  effect: string;
  maxAttempts: number;
  description: string | null;
  author: string;
  timeoutMs: number;
  keyFrom: string;
  toolError: string;
  mode: string;
}

const contractUrl = (tool: string) => `/api/v1/contracts/${encodeURIComponent(tool)}`;

async function putContract(
  request: APIRequestContext,
  tool: string,
  overrides: Record<string, unknown> = {},
): Promise<ContractAnswer> {
  const response = await request.put(contractUrl(tool), {
    headers: { authorization: `Bearer ${TEST_BOOTSTRAP_API_KEY}` },
    data: {
      effect: "IDEMPOTENT",
      idempotencyKey: "required",
      reconcile: { method: "manual" },
      approval: "not_required",
      maxAttempts: 3,
      backoff: { baseMs: 200, maxMs: 5000 },
      keyRetentionMs: 86_400_000,
      description: "created by the admin pages e2e spec",
      ...overrides,
    },
  });
  expect(response.status(), await response.text()).toBeLessThan(300);
  return (await response.json()) as ContractAnswer;
}

async function getContract(request: APIRequestContext, tool: string): Promise<ContractAnswer> {
  const response = await request.get(contractUrl(tool), {
    headers: { authorization: `Bearer ${TEST_BOOTSTRAP_API_KEY}` },
  });
  expect(response.ok()).toBe(true);
  return (await response.json()) as ContractAnswer;
}

/** A second signed-in browser, for conflicts and forged requests (or on another server, for Classify). */
async function secondSession(browser: Browser, role: TestRole, baseURL = E2E_BASE_URL): Promise<Page> {
  const user = testUser(role);
  await ensureUser(user);
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await signInThroughApi(page, user);
  return page;
}

/**
 * The console scrolls inside its main area, so a "full page" screenshot would stop at the viewport: the viewport is
 * made
 * as tall as the content for the picture, then put back.
 */
async function shot(page: Page, name: string): Promise<void> {
  const viewport = page.viewportSize() ?? { width: 1280, height: 720 };
  const contentHeight = await page
    .locator("main")
    .evaluate((main) => main.scrollHeight + main.getBoundingClientRect().top);
  await page.setViewportSize({ width: viewport.width, height: Math.max(viewport.height, Math.ceil(contentHeight)) });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
  await page.setViewportSize(viewport);
}

/** The validation message tied to a field (aria-describedby), which is what a screen reader reads with it. */
async function expectFieldError(page: Page, label: string | RegExp, message: string | RegExp): Promise<void> {
  const field = page.getByLabel(label, { exact: typeof label === "string" });
  await expect(field).toHaveAttribute("aria-invalid", "true");
  await expect(field).toHaveAccessibleDescription(message);
}

// Scoped by text: the framework's route announcer is an alert too.
const formAlert = (page: Page) => page.getByRole("alert").filter({ hasText: /saved/i });
const diffTable = (page: Page) => page.getByRole("table", { name: /Rules that differ/ });
const dependencyRow = (page: Page, name: string) => page.locator(`[data-dependency="${name}"]`);
const auditRows = (page: Page) => page.getByRole("table", { name: "Audit records, newest first" }).locator("tbody tr");

async function forceBreaker(
  page: Page,
  dependency: string,
  button: "Force open" | "Force close" | "Return to automatic",
  reason: string,
) {
  await dependencyRow(page, dependency)
    .getByRole("button", { name: new RegExp(`^${button}`) })
    .click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toBeVisible();
  await dialog.getByLabel("Reason").fill(reason);
  await dialog.getByRole("button", { name: button === "Force close" ? "Force closed" : button }).click();
  await expect(dialog).toBeHidden();
}

test.describe("contracts", () => {
  test("an admin creates a contract: validation messages appear next to their fields first, then it saves as version 1", async ({
    page,
    login,
    request,
  }) => {
    const tool = uniqueName("e2e.pages.charge");
    const dependency = uniqueName("e2e-stripe");
    await login("admin");
    await page.goto("/contracts");
    await page.getByRole("link", { name: "New contract" }).first().click();
    await expect(page).toHaveURL(/\/contracts\/new$/);
    await expect(page.getByRole("heading", { level: 1, name: "New contract" })).toBeVisible();

    await page.getByLabel("Tool name").fill(tool);
    await page.getByRole("radio", { name: /^IDEMPOTENT/ }).check();
    await page
      .getByRole("radio", { name: /^required/ })
      .first()
      .check();
    await page.getByRole("radio", { name: /^lookup/ }).check();
    await page.getByLabel("Max attempts").fill("0");
    await page.getByLabel("Key retention (ms)").fill("86400000");
    await expect(page.getByText("= 1 d")).toBeVisible();
    await page.getByRole("button", { name: "Create contract" }).click();

    await expect(formAlert(page)).toContainText("Nothing was saved");
    await expect(formAlert(page)).toContainText("2 fields need attention");
    await expectFieldError(page, "Lookup URL template", /A lookup needs a urlTemplate\./);
    await expectFieldError(page, "Max attempts", /Must be at least 1\./);
    // The keyboard is taken to the first field that needs attention.
    await expect(page.getByLabel("Max attempts")).toBeFocused();
    await shot(page, "contracts-new-validation");
    expect(
      (
        await request.get(contractUrl(tool), { headers: { authorization: `Bearer ${TEST_BOOTSTRAP_API_KEY}` } })
      ).status(),
    ).toBe(404);

    await page.getByLabel("Lookup URL template").fill("https://api.example.test/v1/charges?key={idempotencyKey}");
    await page.getByLabel("Values that mean applied").fill("succeeded, pending");
    await page.getByLabel("Max attempts").fill("4");
    await page.getByLabel("Dependency", { exact: true }).fill(dependency);
    await page.getByLabel("Description", { exact: true }).fill("Charge a customer's card through Stripe.");
    await page.getByRole("button", { name: "Create contract" }).click();

    await expect(page).toHaveURL(new RegExp(`/contracts/${tool.replaceAll(".", "\\.")}\\?saved=1$`));
    await expect(page.getByText("Saved as version 1.")).toBeVisible();
    await expect(page.getByRole("heading", { level: 1, name: tool })).toBeVisible();
    await expect(page.getByText("Only one version so far.")).toBeVisible();
    const saved = await getContract(request, tool);
    expect(saved).toMatchObject({ version: 1, maxAttempts: 4, author: testUser("admin").email });

    await page.goto("/contracts");
    const row = page.getByRole("row", { name: new RegExp(tool.replaceAll(".", "\\.")) });
    await expect(row).toContainText("IDEMPOTENT");
    await expect(row).toContainText("v1");
    await expect(row).toContainText(dependency);
    await shot(page, "contracts-list");
  });

  test("an edit saves version 2, and the diff shows the changed rules and who changed them", async ({
    page,
    login,
    request,
  }) => {
    const tool = uniqueName("e2e.pages.email");
    await putContract(request, tool, {
      effect: "NON_RETRYABLE",
      idempotencyKey: "optional",
      keyRetentionMs: null,
      maxAttempts: 3,
    });
    const admin = await login("admin");
    await page.goto(`/contracts/${tool}`);
    await page.getByRole("link", { name: "Edit contract" }).click();
    await expect(page.getByRole("heading", { level: 1, name: `Edit ${tool}` })).toBeVisible();
    await expect(page.getByText("You are editing version 1.")).toBeVisible();

    await page.getByLabel("Max attempts").fill("5");
    await page.getByRole("radio", { name: /^Every attempt/ }).check();
    await shot(page, "contracts-edit");
    await page.getByRole("button", { name: "Save as version 2" }).click();

    await expect(page).toHaveURL(/\?saved=2$/);
    await expect(page.getByText("Saved as version 2.")).toBeVisible();
    const diff = diffTable(page);
    await expect(diff.getByRole("row")).toHaveCount(3);
    await expect(diff.getByRole("row", { name: /Max attempts/ })).toContainText("3");
    await expect(diff.getByRole("row", { name: /Max attempts/ })).toContainText("5");
    await expect(diff.getByRole("row", { name: /Approval/ })).toContainText("required");
    await expect(page.getByText(new RegExp(`to v2 \\(${admin.email.replaceAll(".", "\\.")}`))).toBeVisible();
    const history = page.getByRole("table", { name: /Versions of the/ });
    await expect(history.getByRole("row", { name: /^v2/ })).toContainText(admin.email);
    await expect(history.getByRole("row", { name: /^v2/ })).toContainText("Approval, Max attempts");
    await expect(history.getByRole("row", { name: /^v1/ })).toContainText("via API key");
    await shot(page, "contracts-detail-diff");

    // Saving an unchanged form keeps the version.
    await page.getByRole("link", { name: "Edit contract" }).click();
    await page.getByRole("button", { name: "Save as version 3" }).click();
    await expect(page.getByText("Nothing changed, so no new version was made.")).toBeVisible();
    expect((await getContract(request, tool)).version).toBe(2);
  });

  test("a save on top of someone else's newer version is refused with a clear message, never written over it", async ({
    page,
    login,
    request,
    browser,
  }) => {
    const tool = uniqueName("e2e.pages.refund");
    await putContract(request, tool);
    await login("admin");
    await page.goto(`/contracts/${tool}/edit`);
    await expect(page.getByText("You are editing version 1.")).toBeVisible();

    const colleague = await secondSession(browser, "admin");
    try {
      await colleague.goto(`/contracts/${tool}/edit`);
      // A fill that lands before React has hydrated the form can be merged with the value React then restores.
      const description = colleague.getByLabel("Description", { exact: true });
      await expect(async () => {
        await description.fill("Saved first by a colleague.");
        await expect(description).toHaveValue("Saved first by a colleague.", { timeout: 1_000 });
      }).toPass();
      await colleague.getByRole("button", { name: "Save as version 2" }).click();
      await expect(colleague.getByText("Saved as version 2.")).toBeVisible();
    } finally {
      await colleague.context().close();
    }

    await page.getByLabel("Max attempts").fill("7");
    await page.getByRole("button", { name: "Save as version 2" }).click();
    const alert = formAlert(page);
    await expect(alert).toContainText("Not saved: this contract changed while you were editing it");
    await expect(alert).toContainText("changed to version 2 since you opened version 1");
    await expect(alert.getByRole("link", { name: /See what changed since version 1/ })).toHaveAttribute(
      "href",
      `/contracts/${tool}?from=1`,
    );
    await expect(alert.getByRole("link", { name: /Reload the form with the latest version/ })).toBeVisible();
    await expect(page.getByLabel("Max attempts")).toHaveValue("7");
    await shot(page, "contracts-conflict");

    const stored = await getContract(request, tool);
    expect(stored).toMatchObject({ version: 2, maxAttempts: 3, description: "Saved first by a colleague." });

    await alert.getByRole("link", { name: /Reload the form/ }).click();
    await expect(page.getByText("You are editing version 2.")).toBeVisible();
    await expect(page.getByLabel("Description", { exact: true })).toHaveValue("Saved first by a colleague.");
  });

  test("error rules: a starter set is only added to the form, the tester shows the class and the rule, a save versions them", async ({
    page,
    login,
    request,
  }) => {
    const tool = uniqueName("e2e.pages.charge");
    await putContract(request, tool);
    await login("admin");
    await page.goto(`/contracts/${tool}/edit`);
    await page.getByLabel("Starter rules").selectOption("stripe");
    await page.getByRole("button", { name: "Add these rules" }).click();
    await expect(
      page.getByText("Stripe API's rules were added to the form; nothing changes until you save"),
    ).toBeVisible();
    await expect(page.getByLabel("Rule 1 status")).toHaveValue("409");
    expect((await getContract(request, tool)).version).toBe(1);

    const result = page.getByRole("status", { name: "Test result" });
    await page.getByLabel("Test status").fill("409");
    await page.getByLabel("Test body or message").fill('{"error":{"code":"idempotency_key_in_use"}}');
    await expect(result).toContainText("Class transient");
    await expect(result).toContainText(`rule 1 of ${tool}: 409 idempotency_key_in_use means`);
    await page.getByLabel("Test body or message").fill('{"error":{"type":"idempotency_error"}}');
    await expect(result).toContainText("no rule matches, so the global table decides: fatal error 409 conflict");
    await page.getByLabel("Test status").fill("402");
    await expect(result).toContainText(`Class fatal: fatal error 402 bad_request (rule 2 of ${tool}`);

    // A pattern RE2 cannot run in linear time is refused next to its rule, and nothing is saved.
    await page.getByLabel("Rule 3 message pattern").fill("(a)\\1");
    await page.getByRole("button", { name: "Save as version 2" }).click();
    await expect(page.getByText(/message: Not a pattern this matcher accepts/)).toBeVisible();
    await shot(page, "contracts-error-rules");
    await page.getByLabel("Rule 3 message pattern").fill("");
    await page.getByRole("button", { name: "Save as version 2" }).click();
    await expect(page).toHaveURL(/\?saved=2$/);
    await expect(diffTable(page).getByRole("row", { name: /Error rules/ })).toContainText("1. status 409 with");
    expect((await getContract(request, tool)).version).toBe(2);
  });

  test("a viewer sees no way to edit, and a forged save sent with a viewer's session is refused", async ({
    page,
    login,
    request,
    browser,
  }) => {
    const tool = uniqueName("e2e.pages.deploy");
    await putContract(request, tool, { effect: "UNKNOWN", idempotencyKey: "optional", keyRetentionMs: null });

    // Capture a genuine save from an admin's browser.
    await login("admin");
    await page.goto(`/contracts/${tool}/edit`);
    await page.getByLabel("Description", { exact: true }).fill("captured for replay");
    const [actionRequest] = await Promise.all([
      page.waitForRequest((r) => r.method() === "POST" && r.headers()["next-action"] !== undefined),
      page.getByRole("button", { name: "Save as version 2" }).click(),
    ]);
    await expect(page.getByText("Saved as version 2.")).toBeVisible();
    const body = actionRequest.postData() ?? "";
    expect(body).toContain('"expectedVersion":1');
    const replay = (from: Page, description: string) =>
      from.request.post(`/contracts/${tool}/edit`, {
        headers: {
          "next-action": actionRequest.headers()["next-action"] ?? "",
          "content-type": actionRequest.headers()["content-type"] ?? "text/plain;charset=UTF-8",
          accept: "text/x-component",
          origin: E2E_BASE_URL,
        },
        // Against the current version, so only the role can stop it.
        data: body.replace('"expectedVersion":1', '"expectedVersion":2').replace("captured for replay", description),
        failOnStatusCode: false,
      });

    const viewer = await secondSession(browser, "viewer");
    try {
      await viewer.goto("/contracts");
      await expect(viewer.getByRole("row", { name: new RegExp(tool.replaceAll(".", "\\.")) })).toBeVisible();
      await expect(viewer.getByRole("link", { name: "New contract" })).toHaveCount(0);
      await viewer.goto(`/contracts/${tool}`);
      await expect(viewer.getByRole("heading", { level: 1, name: tool })).toBeVisible();
      await expect(viewer.getByRole("link", { name: "Edit contract" })).toHaveCount(0);
      await expect(viewer.getByText("Changing a contract needs the admin role.")).toBeVisible();
      await viewer.goto(`/contracts/${tool}/edit`);
      await expect(viewer.getByRole("heading", { name: "This page needs the admin role" })).toBeVisible();
      await expect(viewer.getByRole("button", { name: /Save as version/ })).toHaveCount(0);

      const forged = await replay(viewer, "forged by a viewer");
      // The action ran and refused on the role, inside the action (not a CSRF or routing rejection).
      expect(await forged.text()).toContain('"code":"forbidden"');
      expect(await getContract(request, tool)).toMatchObject({ version: 2, description: "captured for replay" });

      // The same replay from the admin's session is accepted, so the forged request was well-formed.
      const genuine = await replay(page, "replayed by the admin");
      expect(await genuine.text()).toContain('"ok":true');
      expect(await getContract(request, tool)).toMatchObject({ version: 3, description: "replayed by the admin" });
    } finally {
      await viewer.context().close();
    }
  });
});

test.describe("contracts: the MCP gateway", () => {
  test("the gateway fields show their defaults, the schema's messages appear by each field, and observe mode is tagged", async ({
    page,
    login,
    request,
  }) => {
    const tool = uniqueName("e2e.pages.gateway");
    await login("admin");
    await page.goto("/contracts/new");
    const gateway = page.getByRole("region", { name: "MCP gateway" });
    await expect(gateway.getByLabel("Upstream timeout (ms)")).toHaveValue("30000");
    await expect(gateway.getByText("= 30 s")).toBeVisible();
    await expect(gateway.getByLabel("Idempotency key from")).toHaveValue("args");
    await expect(gateway.getByRole("radio", { name: "fatal (default)" })).toBeChecked();
    await expect(gateway.getByRole("radio", { name: "enforce (default)" })).toBeChecked();
    await expect(gateway.getByRole("radio", { name: /^observe/ })).toHaveAccessibleDescription(
      /Forward every call and record what enforcing would have done/,
    );

    await page.getByLabel("Tool name").fill(tool);
    await gateway.getByLabel("Upstream timeout (ms)").fill("50");
    await gateway.getByLabel("Idempotency key from").fill("refund");
    await page.getByRole("button", { name: "Create contract" }).click();
    await expect(formAlert(page)).toContainText("2 fields need attention");
    await expectFieldError(page, "Upstream timeout (ms)", /Must be at least 100\./);
    await expectFieldError(page, "Idempotency key from", /Must be "args" or a template naming at least one argument/);
    await expect(page.getByLabel("Upstream timeout (ms)")).toBeFocused();
    await shot(page, "contracts-gateway-validation");

    await gateway.getByLabel("Upstream timeout (ms)").fill("2500");
    await gateway.getByLabel("Idempotency key from").fill("refund:{order_id}");
    await gateway.getByRole("radio", { name: /^unknown/ }).check();
    await gateway.getByRole("radio", { name: /^observe/ }).check();
    await page.getByRole("button", { name: "Create contract" }).click();
    await expect(page.getByText("Saved as version 1.")).toBeVisible();
    expect(await getContract(request, tool)).toMatchObject({
      version: 1,
      timeoutMs: 2500,
      keyFrom: "refund:{order_id}",
      toolError: "unknown",
      mode: "observe",
    });
    const current = page.getByRole("region", { name: /Current rules/ });
    await expect(current.getByText("Upstream timeout (ms)")).toBeVisible();
    await expect(current.getByText("refund:{order_id}")).toBeVisible();
    await expect(current.locator('[data-mode="observe"]')).toHaveText("observe");

    await page.goto("/contracts");
    const row = page.getByRole("row", { name: new RegExp(tool.replaceAll(".", "\\.")) });
    await expect(row.locator('[data-mode="observe"]')).toHaveText("observe");

    // Back to enforce: the diff names the mode; then an unchanged save keeps the version.
    await page.goto(`/contracts/${tool}/edit`);
    await expect(page.getByLabel("Upstream timeout (ms)")).toHaveValue("2500");
    await page.getByRole("radio", { name: /^enforce/ }).check();
    await page.getByRole("button", { name: "Save as version 2" }).click();
    await expect(page.getByText("Saved as version 2.")).toBeVisible();
    await expect(diffTable(page).getByRole("row", { name: /Mode/ })).toContainText("enforce");
    await page.getByRole("link", { name: "Edit contract" }).click();
    await page.getByRole("button", { name: "Save as version 3" }).click();
    await expect(page.getByText("Nothing changed, so no new version was made.")).toBeVisible();
  });

  test("an edit of a contract written without the gateway fields saves nothing new when nothing changed", async ({
    page,
    login,
    request,
  }) => {
    const tool = uniqueName("e2e.pages.legacy");
    await putContract(request, tool);
    await login("admin");
    await page.goto(`/contracts/${tool}/edit`);
    await expect(page.getByLabel("Idempotency key from")).toHaveValue("args");
    await page.getByRole("button", { name: "Save as version 2" }).click();
    await expect(page.getByText("Nothing changed, so no new version was made.")).toBeVisible();
    expect((await getContract(request, tool)).version).toBe(1);
  });

  test("Classify opens the editor drafted from an upstream tool's hints; the person picks the class and saves", async ({
    browser,
    request,
  }) => {
    test.setTimeout(120_000);
    // A name of its own, so the contracts saved here are no other spec's.
    const upstream = `classify-${randomBytes(4).toString("hex")}`;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "opledger-classify-"));
    const file = path.join(dir, "upstreams.json");
    const script = path.join(REPO_ROOT, "e2e", "mcp", "test-upstream.ts");
    const config = { command: process.execPath, args: ["--import", "tsx", script], cwd: REPO_ROOT };
    fs.writeFileSync(file, JSON.stringify({ upstreams: { [upstream]: config } }));
    const server = await ServerProcess.start({
      name: "classify server",
      port: extraPort(6),
      databaseUrl: E2E_DB_URL,
      env: { OPLEDGER_MCP_UPSTREAMS: file },
    });
    const admin = await secondSession(browser, "admin", server.url);
    const viewer = await secondSession(browser, "viewer", server.url);
    try {
      // readOnlyHint: PURE is preselected, as a suggestion with its reason, and the hints are called untrusted.
      const lookup = `${upstream}__lookup`;
      await admin.goto(`/contracts/new?classify=${lookup}`);
      await expect(admin.getByText(`Drafted from the upstream's description of ${lookup}.`)).toBeVisible();
      await expect(admin.getByLabel("Tool name")).toHaveValue(lookup);
      await expect(admin.getByLabel("Description", { exact: true })).toHaveValue(
        "Read the value stored under an id. Reads only.",
      );
      await expect(admin.getByRole("radio", { name: /^PURE/ })).toBeChecked();
      const suggestion = admin.getByTestId("class-suggestion");
      await expect(suggestion).toContainText("Suggested from the upstream's hints: PURE (preselected).");
      await expect(suggestion).toContainText("readOnlyHint");
      await expect(suggestion).toContainText("not trusted: you choose the class");
      await shot(admin, "contracts-classify");
      await admin.getByRole("button", { name: "Create contract" }).click();
      await expect(admin.getByText("Saved as version 1.")).toBeVisible();
      expect(await getContract(request, lookup)).toMatchObject({ version: 1, effect: "PURE" });

      // No safe hint: nothing suggested, the cautious class stays, and the person's choice is what is saved.
      const charge = `${upstream}__charge`;
      await admin.goto(`/contracts/new?classify=${charge}`);
      await expect(admin.getByRole("radio", { name: /^NON_RETRYABLE/ })).toBeChecked();
      await expect(admin.getByTestId("class-suggestion")).toContainText("No class suggested");
      await expect(admin.getByTestId("class-suggestion")).toContainText("pick the class yourself");
      await admin.getByRole("radio", { name: /^UNKNOWN/ }).check();
      await admin.getByRole("button", { name: "Create contract" }).click();
      await expect(admin.getByText("Saved as version 1.")).toBeVisible();
      expect(await getContract(request, charge)).toMatchObject({ version: 1, effect: "UNKNOWN" });

      // A tool no upstream lists: the empty form, said in one line.
      await admin.goto(`/contracts/new?classify=${upstream}__nothing`);
      await expect(admin.getByText(`No upstream lists a tool named “${upstream}__nothing” right now`)).toBeVisible();
      await expect(admin.getByLabel("Tool name")).toHaveValue("");
      await expect(admin.getByTestId("class-suggestion")).toHaveCount(0);

      await viewer.goto(`/contracts/new?classify=${lookup}`);
      await expect(viewer.getByRole("heading", { name: "This page needs the admin role" })).toBeVisible();
      await expect(viewer.getByLabel("Tool name")).toHaveCount(0);
    } finally {
      await admin.context().close();
      await viewer.context().close();
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

test.describe("dependencies", () => {
  test("an operator forces a breaker open with a reason: it shows open (forced), dispatches fail fast, and it can be handed back", async ({
    page,
    login,
    request,
  }) => {
    const seed = new LedgerSeed(request);
    const dependency = uniqueName("e2e-mailer");
    const tool = await seed.tool("NON_RETRYABLE", { dependency });
    const operator = await login("operator");
    await page.goto("/dependencies");
    const row = dependencyRow(page, dependency);
    await expect(row.getByText("closed", { exact: true })).toBeVisible();
    await expect(row).toContainText(tool);

    await row.getByRole("button", { name: /^Force open/ }).click();
    const dialog = page.getByRole("dialog", { name: `Force the ${dependency} breaker open?` });
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText("refused at once with an “unavailable” decision");
    await expect(dialog.getByLabel("Reason")).toBeFocused();
    await dialog.getByRole("button", { name: "Force open" }).click();
    await expect(dialog.getByLabel("Reason")).toHaveAccessibleDescription(/Say why, in a few words/);
    await shot(page, "dependencies-dialog");
    await dialog.getByLabel("Reason").fill("Mail provider incident INC-7 (e2e)");
    await dialog.getByRole("button", { name: "Force open" }).click();
    await expect(dialog).toBeHidden();

    await expect(row.getByText("open (forced)")).toBeVisible();
    await expect(row.getByTestId("forced-note")).toContainText("Mail provider incident INC-7 (e2e)");
    await expect(row.getByTestId("forced-note")).toContainText(operator.email);
    await expect(page.getByText(`The ${dependency} breaker is now open (forced).`)).toBeVisible();
    await expect(row.getByRole("button", { name: /^Force open/ })).toHaveCount(0);
    await shot(page, "dependencies-forced");

    // The gate obeys it: a new dispatch of the tool fails fast without spending an attempt.
    const planned = await seed.plan(tool);
    const fence = await seed.claim(planned.id, uniqueName("worker"));
    const refused = await seed.dispatch(planned.id, fence);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("breaker_open");
    expect((await seed.get(planned.id)).attempt).toBe(0);

    await forceBreaker(page, dependency, "Return to automatic", "Incident over (e2e)");
    await expect(row.getByText("closed", { exact: true })).toBeVisible();
    await expect(row.getByTestId("forced-note")).toHaveCount(0);
  });

  test("a viewer sees the breakers but no buttons to force them", async ({ page, login, request }) => {
    const seed = new LedgerSeed(request);
    const dependency = uniqueName("e2e-search");
    await seed.tool("PURE", { dependency });
    await login("viewer");
    await page.goto("/dependencies");
    await expect(dependencyRow(page, dependency)).toBeVisible();
    await expect(page.getByRole("button", { name: /^(Force open|Force close|Return to automatic)/ })).toHaveCount(0);
    await expect(page.getByText("Forcing a breaker open or closed needs the operator role.")).toBeVisible();
  });
});

test.describe("audit", () => {
  test("lists the contract and breaker events newest first, with who and why, and its filters narrow them in the URL", async ({
    page,
    login,
    request,
  }) => {
    const tool = uniqueName("e2e.pages.audited");
    const dependency = uniqueName("e2e-ledgerdep");
    await putContract(request, tool, { dependency });
    await putContract(request, tool, { dependency, maxAttempts: 4 });
    const operator = await login("operator");
    await page.goto("/dependencies");
    await forceBreaker(page, dependency, "Force open", "Audited incident (e2e)");

    await page.goto("/audit");
    await expect(page.getByRole("heading", { level: 1, name: "Audit" })).toBeVisible();
    const forced = auditRows(page).filter({ hasText: "dependency.forced_open" }).filter({ hasText: dependency });
    await expect(forced).toHaveCount(1);
    await expect(forced).toContainText(operator.email);
    await expect(forced).toContainText("Audited incident (e2e)");
    await expect(forced.getByRole("link", { name: dependency })).toHaveAttribute(
      "href",
      `/dependencies#dependency-${dependency}`,
    );
    await shot(page, "audit-log");

    const search = page.getByRole("search", { name: "Filter the audit log" });
    await search.getByLabel("Subject type").selectOption("contract");
    await search.getByLabel("Subject id").fill(tool);
    await search.getByRole("button", { name: "Apply filters" }).click();
    await expect(page).toHaveURL(new RegExp(`/audit\\?subjectType=contract&subjectId=${tool.replaceAll(".", "\\.")}$`));
    await expect(auditRows(page)).toHaveCount(2);
    await expect(auditRows(page).nth(0)).toContainText("contract.updated");
    await expect(auditRows(page).nth(0)).toContainText("version 2");
    await expect(auditRows(page).nth(1)).toContainText("contract.created");
    await expect(auditRows(page).nth(1)).toContainText("API key");
    await expect(auditRows(page).nth(0).getByRole("link", { name: tool })).toHaveAttribute(
      "href",
      `/contracts/${tool}`,
    );
    await shot(page, "audit-filtered");

    // Kept across a reload, and narrowed further by action.
    await page.reload();
    await expect(search.getByLabel("Subject id")).toHaveValue(tool);
    await search.getByLabel("Action").fill("contract.created");
    await search.getByRole("button", { name: "Apply filters" }).click();
    await expect(page).toHaveURL(/[?&]action=contract\.created/);
    await expect(auditRows(page)).toHaveCount(1);

    // By actor (the person's user id: audit records name principals by id), with a prefix action and a relative time.
    await page.goto(
      `/audit?actorId=${encodeURIComponent(await userIdOf(operator.email))}&action=dependency.*&since=1h`,
    );
    await expect(search.getByLabel("Since")).toHaveValue("1h");
    const byOperator = auditRows(page);
    await expect(byOperator.filter({ hasText: dependency })).toHaveCount(1);
    for (const action of await byOperator.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-action") ?? ""))) {
      expect(action).toMatch(/^dependency\./);
    }

    // A filter that matches nothing says so; a filter that cannot be read is named.
    await page.goto(`/audit?subjectId=${uniqueName("nothing")}&since=yesterday`);
    await expect(page.getByRole("heading", { name: "No audit records match these filters." })).toBeVisible();
    await expect(page.getByText("“yesterday” is not a time")).toBeVisible();
    await page.getByRole("link", { name: "Clear the filters" }).click();
    await expect(page).toHaveURL(`${E2E_BASE_URL}/audit`);
  });

  test("pages through older records with a keyset cursor, filters and page size kept", async ({
    page,
    login,
    request,
  }) => {
    const tool = uniqueName("e2e.pages.paged");
    for (let i = 1; i <= 3; i++) await putContract(request, tool, { maxAttempts: i });
    await login("viewer");
    await page.goto(`/audit?subjectType=contract&subjectId=${tool}&limit=2`);
    await expect(auditRows(page)).toHaveCount(2);
    await expect(auditRows(page).nth(0)).toContainText("version 3");
    await expect(auditRows(page).nth(1)).toContainText("version 2");
    await page.getByRole("link", { name: "Older →" }).click();
    await expect(page).toHaveURL(/[?&]cursor=[0-9A-Z]{26}/);
    await expect(page).toHaveURL(/[?&]limit=2/);
    await expect(auditRows(page)).toHaveCount(1);
    await expect(auditRows(page).nth(0)).toContainText("contract.created");
    await expect(page.getByRole("link", { name: "Older →" })).toHaveCount(0);
    await page.getByRole("link", { name: "← Newest" }).click();
    await expect(auditRows(page).nth(0)).toContainText("version 3");
  });
});

test.describe("metrics", () => {
  test("charts unknown outcomes, reconciliations, duplicates, approvals and retries, with text alternatives, for 1 h and 24 h", async ({
    page,
    login,
    request,
  }) => {
    const seed = new LedgerSeed(request);
    const unknownTool = await seed.tool("UNKNOWN");
    const nonRetryable = await seed.tool("NON_RETRYABLE");
    await seed.unknown(unknownTool);
    await seed.awaitingApproval(nonRetryable);

    await login("viewer");
    await page.goto("/metrics");
    await expect(page.getByRole("heading", { level: 1, name: "Metrics" })).toBeVisible();
    for (const title of [
      "Unknown outcomes",
      "Reconciliations",
      "Duplicate rejections",
      "Approval interruptions",
      "PURE",
      "NON_RETRYABLE",
    ]) {
      const figure = page.getByRole("figure", { name: title, exact: true });
      await expect(figure).toBeVisible();
      await expect(figure.locator("svg.recharts-surface")).toBeVisible();
    }
    const unknown = page.getByRole("figure", { name: "Unknown outcomes" });
    await expect(unknown).toHaveAccessibleDescription(/\d+ in the last hour; .*UTC\./);
    await unknown.getByText("Show as a table").click();
    await expect(unknown.getByRole("table")).toBeVisible();
    await expect(page.getByRole("figure", { name: "Approval interruptions" })).toHaveAccessibleDescription(
      /\d+ in the last hour/,
    );
    await expect(page.getByText("Prometheus scrapes GET /api/v1/metrics")).toBeVisible();
    await expect(page.getByRole("link", { name: "Last hour" })).toHaveAttribute("aria-current", "page");
    await shot(page, "metrics-1h");

    await page.getByRole("link", { name: "Last 24 hours" }).click();
    await expect(page).toHaveURL(/\/metrics\?window=24h$/);
    await expect(page.getByRole("link", { name: "Last 24 hours" })).toHaveAttribute("aria-current", "page");
    await expect(page.getByRole("figure", { name: "Unknown outcomes" })).toHaveAccessibleDescription(
      /\d+ in the last 24 hours/,
    );
    await shot(page, "metrics-24h");
  });
});
