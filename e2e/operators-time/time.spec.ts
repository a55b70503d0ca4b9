// Where the wall-clock went and tunable breakers, in the console and the API: an admin edits a breaker's settings on the
// Dependencies page (field messages, a reason, the version kept), the API refuses keys without the admin scope and a
// stale version, the Metrics page shows time in backoff against time in calls, and a run page draws the run.
import path from "node:path";
import type { Page } from "@playwright/test";
import { createKey, parsePrometheus } from "../fixtures/api";
import { ensureUser, expect, signInThroughApi, test, testUser } from "../fixtures/login";
import { LedgerSeed, uniqueName } from "../fixtures/seed";
import { E2E_BASE_URL, SCREENSHOT_DIR, TEST_BOOTSTRAP_API_KEY } from "../fixtures/test-env";

/** The console scrolls inside <main>: the window grows to the content for a whole-page screenshot. */
async function screenshot(page: Page, name: string): Promise<void> {
  const before = page.viewportSize();
  await page.setViewportSize({ width: 1440, height: 900 });
  const height = await page.locator("main").evaluate((main) => main.scrollHeight + main.getBoundingClientRect().top);
  await page.setViewportSize({ width: 1440, height: Math.min(Math.max(Math.ceil(height), 900), 5000) });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `operators-time-${name}.png`) });
  if (before) await page.setViewportSize(before);
}

const breakerPath = (dependency: string) => `/api/v1/dependencies/${encodeURIComponent(dependency)}/breaker`;
const settings = {
  failureThreshold: 2,
  cooldownMs: 5_000,
  probes: 3,
  reason: "set through the API",
  expectedVersion: 0,
};

test.describe("tunable breakers", () => {
  test("PUT /api/v1/dependencies/{name}/breaker needs the admin scope, checks bounds and refuses a stale version", async ({
    request,
  }) => {
    const seed = new LedgerSeed(request);
    const dependency = uniqueName("e2e-dep");
    await seed.tool("IDEMPOTENT", { dependency });
    const agent = await createKey(["agent"]);
    const operator = await createKey(["operator"]);
    const metrics = await createKey(["metrics"]);

    expect((await seed.call("PUT", breakerPath(dependency), settings, "")).status).toBe(401);
    for (const key of [agent.key, operator.key, metrics.key]) {
      const refused = await seed.call<{ code: string }>("PUT", breakerPath(dependency), settings, key);
      expect(refused.status).toBe(403);
      expect((await seed.call("GET", breakerPath(dependency), undefined, key)).status).toBe(403);
    }
    const bad = await seed.call<{ code: string; errors: Record<string, string[]> }>(
      "PUT",
      breakerPath(dependency),
      { ...settings, failureThreshold: 0, cooldownMs: 999, probes: 101 },
      TEST_BOOTSTRAP_API_KEY,
    );
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(["cooldownMs", "failureThreshold", "probes"]);
    // Nothing was written by any refused request.
    const before = await seed.call<{ current: { version: number; failureThreshold: number } }>(
      "GET",
      breakerPath(dependency),
      undefined,
      TEST_BOOTSTRAP_API_KEY,
    );
    expect(before.body.current).toMatchObject({ version: 0, failureThreshold: 5 });

    const saved = await seed.call<{ version: number; changed: boolean; probes: number }>(
      "PUT",
      breakerPath(dependency),
      settings,
      TEST_BOOTSTRAP_API_KEY,
    );
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ version: 1, changed: true, probes: 3 });
    const stale = await seed.call<{ code: string }>(
      "PUT",
      breakerPath(dependency),
      { ...settings, failureThreshold: 7 },
      TEST_BOOTSTRAP_API_KEY,
    );
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("write_conflict");
    expect((await seed.call("PUT", breakerPath("no-such-dependency"), settings, TEST_BOOTSTRAP_API_KEY)).status).toBe(
      404,
    );
  });

  test("an admin edits a breaker's settings on the Dependencies page; a viewer cannot", async ({
    page,
    login,
    request,
    browser,
  }) => {
    const seed = new LedgerSeed(request);
    const dependency = uniqueName("e2e-dep");
    await seed.tool("IDEMPOTENT", { dependency });

    await login("admin");
    await page.goto(`/dependencies#dependency-${dependency}`);
    const row = page.locator(`tbody[data-dependency="${dependency}"]`);
    await expect(row.getByTestId("settings-history")).toContainText("the defaults (version 0)");
    await row.getByRole("button", { name: `Settings… of the ${dependency} breaker` }).click();
    const dialog = page.getByRole("dialog");
    await expect(dialog).toBeVisible();
    await dialog.getByLabel("Failure threshold").fill("0");
    await dialog.getByLabel("Cooldown (seconds)").fill("5");
    await dialog.getByLabel("Half-open probes").fill("3");
    await dialog.getByLabel("Reason").fill("Provider flaps during deploys");
    await dialog.getByRole("button", { name: "Save settings" }).click();
    await expect(dialog.getByText("The failure threshold is a whole number from 1 to 1000.")).toBeVisible();
    await expect(dialog.getByLabel("Failure threshold")).toHaveAttribute("aria-invalid", "true");
    await screenshot(page, "breaker-settings-field-error");

    await dialog.getByLabel("Failure threshold").fill("2");
    await dialog.getByRole("button", { name: "Save settings" }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByText(`The ${dependency} breaker settings are now version 1.`)).toBeVisible();
    await expect(row).toContainText("opens after 2 in a row");
    await expect(row).toContainText("closes after 3 good probes in a row");
    await row.getByTestId("settings-history").locator("summary").click();
    await expect(row.getByTestId("settings-history")).toContainText("Provider flaps during deploys");
    await expect(row.getByTestId("settings-history")).toContainText("v1");
    await screenshot(page, "breaker-settings-saved");

    // The API sees the version the console wrote.
    const history = await seed.call<{ current: { version: number; failureThreshold: number; cooldownMs: number } }>(
      "GET",
      breakerPath(dependency),
      undefined,
      TEST_BOOTSTRAP_API_KEY,
    );
    expect(history.body.current).toMatchObject({ version: 1, failureThreshold: 2, cooldownMs: 5_000 });

    // A viewer, in a browser of their own, sees the settings and cannot edit them.
    const viewer = testUser("viewer");
    await ensureUser(viewer);
    const context = await browser.newContext({ baseURL: E2E_BASE_URL });
    try {
      const viewerPage = await context.newPage();
      await signInThroughApi(viewerPage, viewer);
      await viewerPage.goto(`/dependencies#dependency-${dependency}`);
      const viewerRow = viewerPage.locator(`tbody[data-dependency="${dependency}"]`);
      await expect(viewerRow).toContainText("opens after 2 in a row");
      await expect(viewerRow.getByRole("button", { name: /Settings…/ })).toHaveCount(0);
    } finally {
      await context.close();
    }
  });
});

test.describe("where the wall-clock went", () => {
  test("the Metrics page splits backoff from calls, the export counts it, and the run page draws the run", async ({
    page,
    login,
    request,
  }) => {
    const seed = new LedgerSeed(request);
    const dependency = uniqueName("e2e-dep");
    const tool = await seed.tool("IDEMPOTENT", { dependency });
    const runId = uniqueName("e2e-run");
    // One call fails with a 503 whose Retry-After makes the gate prescribe exactly 1.5 s (the contract's maxMs is
    // below it), waits that and a little more of its own, and succeeds on its second attempt; another succeeds at once.
    // The run has an allowance; its one retry and the backoff it waits are counted against it.
    expect((await seed.call("PUT", `/api/v1/runs/${runId}`, { maxRetries: 5, maxBackoffMs: 10_000 })).status).toBe(201);
    const first = await seed.dispatched(tool, { runId });
    const failed = await seed.outcome(first.op.id, {
      fence: first.fence,
      result: "failed",
      error: { kind: "server_error", httpStatus: 503, message: "try later", retryAfterMs: 1_500 },
    });
    expect(failed.phase).toBe("RETRY_SCHEDULED");
    await new Promise((resolve) => setTimeout(resolve, 1_800));
    expect((await seed.dispatch(first.op.id, first.fence)).status).toBe(200);
    await seed.outcome(first.op.id, { fence: first.fence, result: "confirmed" });
    await seed.confirmed(tool, { runId });

    const response = await request.get("/api/v1/metrics", {
      headers: { authorization: `Bearer ${TEST_BOOTSTRAP_API_KEY}` },
    });
    const samples = parsePrometheus(await response.text());
    const backoff = samples.get(`opledger_backoff_seconds_total{tool="${tool}",dependency="${dependency}"}`);
    // The gate's 1.5 s, not the agent's extra wait.
    expect(backoff).toBe(1.5);
    expect(samples.get(`opledger_attempt_seconds_count{tool="${tool}"}`)).toBe(3);

    await login("viewer");
    await page.goto("/metrics");
    const wallClock = page.getByTestId("wall-clock");
    await expect(wallClock.getByRole("heading", { name: "Where the wall-clock went" })).toBeVisible();
    const toolRow = wallClock.locator(`tr[data-time-row="tool:${tool}"]`);
    await expect(toolRow).toBeVisible();
    await expect(toolRow.locator("td").first()).toHaveText(/^1\.\d s$/);
    await expect(wallClock.locator(`tr[data-time-row="dependency:${dependency}"]`)).toBeVisible();
    await expect(page.getByTestId("tool-retries").locator(`[data-tool-retries="${tool}"]`)).toBeVisible();
    await expect(page.getByTestId("drift").getByRole("heading", { name: "Outcome mix and drift" })).toBeVisible();
    await screenshot(page, "metrics");

    await page.goto(`/runs/${encodeURIComponent(runId)}`);
    await expect(page.getByRole("heading", { name: `Run ${runId}` })).toBeVisible();
    const timeline = page.getByTestId("run-timeline");
    await expect(timeline.locator("[data-run-row]")).toHaveCount(2);
    await expect(timeline.locator(`[data-run-row="${first.op.id}"] [data-attempt-bar]`)).toHaveCount(2);
    await expect(timeline.locator(`[data-run-row="${first.op.id}"] [data-backoff-gap="2"]`)).toHaveCount(1);
    await expect(page.getByTestId("run-totals")).toContainText("2 operations, 3 attempts");
    const allowance = page.getByRole("region", { name: "Allowance" });
    await expect(allowance).toContainText("1 of 5 used");
    await expect(allowance).toContainText("1.5 s of 10 s used");
    await screenshot(page, "run");

    // A run nobody planned is a real 404, and the console's JSON refuses a signed-out caller.
    expect((await page.request.get(`/runs/${uniqueName("no-run")}`)).status()).toBe(404);
    const anonymous = await request.get(`/api/console/runs/${encodeURIComponent(runId)}`);
    expect([401, 403]).toContain(anonymous.status());
  });
});
