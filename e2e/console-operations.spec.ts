// The operational console: the ledger (filters, pages, live refresh), the Unknowns and Approvals queues with live nav
// counts, and the operation page's actions — approve, reject, reconcile — including races, roles and a forged action.
import path from "node:path";
import type { Browser, Page } from "@playwright/test";
import { userIdOf } from "./fixtures/api";
import { ensureUser, expect, signInThroughApi, test, testUser, type TestRole } from "./fixtures/login";
import { LedgerSeed, uniqueName, type SeededOperation } from "./fixtures/seed";
import { E2E_BASE_URL, SCREENSHOT_DIR } from "./fixtures/test-env";

// Specs share one server and database: every test works on tools of its own, so they cannot see each other's rows.

const rows = (page: Page) => page.locator("table[aria-label='Operations'] tbody tr[data-operation-row]");

async function rowIds(page: Page): Promise<string[]> {
  return rows(page).evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-operation-row") ?? ""));
}

/** Waits until the table shows exactly these ids, in this order (it refreshes itself, so poll). */
async function expectRows(page: Page, ids: string[]): Promise<void> {
  await expect(page.locator("table[aria-label='Operations']")).not.toHaveAttribute("aria-busy", "true");
  await expect.poll(() => rowIds(page)).toEqual(ids);
}

async function navCount(page: Page, label: "Unknowns" | "Approvals"): Promise<number | null> {
  const badge = page
    .getByRole("navigation", { name: "Console" })
    .getByRole("link", { name: new RegExp(`^${label}\\b`) })
    .locator("span[title]");
  if ((await badge.count()) === 0) return null;
  const title = (await badge.getAttribute("title")) ?? "";
  return Number(/^(\d+)/.exec(title)?.[1] ?? Number.NaN);
}

/** How many operations the agent API says are in a phase (paging through, 200 at a time). */
async function countInPhase(seed: LedgerSeed, phase: string): Promise<number> {
  let total = 0;
  let cursor: string | null = null;
  do {
    const query: string = `/api/v1/operations?phase=${phase}&limit=200${cursor ? `&cursor=${cursor}` : ""}`;
    const answer = await seed.call<{ items: unknown[]; nextCursor: string | null }>("GET", query);
    total += answer.body.items.length;
    cursor = answer.body.nextCursor;
  } while (cursor);
  return total;
}

/** A second signed-in browser, for races and forged requests. */
async function secondSession(browser: Browser, role: TestRole): Promise<Page> {
  const user = testUser(role);
  await ensureUser(user);
  const context = await browser.newContext({ baseURL: E2E_BASE_URL });
  const page = await context.newPage();
  await signInThroughApi(page, user);
  return page;
}

const dialog = (page: Page) => page.getByRole("dialog");

/**
 * The console scrolls inside <main>, so a full-page screenshot would cut it off: the window grows to the content
 * instead.
 */
async function screenshot(page: Page, name: string): Promise<void> {
  const before = page.viewportSize();
  await page.setViewportSize({ width: 1440, height: 900 });
  const height = await page.locator("main").evaluate((main) => main.scrollHeight + main.getBoundingClientRect().top);
  await page.setViewportSize({ width: 1440, height: Math.min(Math.max(Math.ceil(height), 900), 4000) });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
  if (before) await page.setViewportSize(before);
}
const operationPage = (id: string) => `/operations/${id}`;

test.describe("the ledger", () => {
  test("lists operations newest first with their phase, class, attempts and decision", async ({
    page,
    login,
    request,
  }) => {
    const seed = new LedgerSeed(request);
    const tool = await seed.tool("NON_RETRYABLE");
    const run = uniqueName("run");
    const first = await seed.plan(tool, { runId: run, agentId: "agent-billing" });
    const second = await seed.confirmed(tool, { runId: run });
    const third = await seed.awaitingApproval(tool);

    await login("viewer");
    await page.goto(`/?tool=${tool}`);
    await expectRows(page, [third.op.id, second.op.id, first.id]);

    const top = rows(page).first();
    await expect(top.locator("[data-phase]")).toHaveText("Awaiting approval");
    await expect(top.locator("[data-effect]")).toHaveText("NON_RETRYABLE");
    await expect(top.getByText("1/3")).toBeVisible();
    await expect(top.locator("[data-decision]")).toHaveText("Needs approval");
    // The decision's reason is on hover, and read to screen readers.
    await expect(top.locator("td[title]").filter({ hasText: "Needs approval" })).toHaveAttribute(
      "title",
      /NON_RETRYABLE/,
    );
    await expect(rows(page).nth(1).locator("[data-phase]")).toHaveText("Confirmed");
    await expect(rows(page).nth(2).locator("[data-phase]")).toHaveText("Planned");
    await expect(rows(page).nth(2).getByText("Agent agent-billing")).toBeAttached();

    await rows(page).first().getByRole("link").click();
    await expect(page).toHaveURL(new RegExp(`/operations/${third.op.id}$`));
    await expect(page.getByRole("heading", { level: 1, name: tool })).toBeVisible();
  });

  test("filters by tool and phase, kept in the URL across a reload", async ({ page, login, request }) => {
    const seed = new LedgerSeed(request);
    const tool = await seed.tool("UNKNOWN");
    const other = await seed.tool("UNKNOWN");
    const planned = await seed.plan(tool);
    const confirmed = await seed.confirmed(tool);
    const unknown = await seed.unknown(tool);
    await seed.unknown(other);

    await login("viewer");
    await page.goto("/");
    const search = page.getByRole("search", { name: "Filter operations" });
    await search.getByLabel("Tool").fill(tool);
    await search.getByLabel("Tool").press("Enter");
    await expect(page).toHaveURL(new RegExp(`[?&]tool=${tool.replaceAll(".", "\\.")}`));
    await expectRows(page, [unknown.op.id, confirmed.op.id, planned.id]);

    await search.getByLabel("Phase").selectOption("UNKNOWN");
    await expect(page).toHaveURL(/[?&]phase=UNKNOWN/);
    await expectRows(page, [unknown.op.id]);
    await expect(rows(page).first().locator("[data-phase]")).toHaveText("Unknown");

    await page.reload();
    await expect(search.getByLabel("Phase")).toHaveValue("UNKNOWN");
    await expect(search.getByLabel("Tool")).toHaveValue(tool);
    await expectRows(page, [unknown.op.id]);

    await search.getByLabel("Phase").selectOption("CONFIRMED");
    await expectRows(page, [confirmed.op.id]);
    await search.getByLabel("Phase").selectOption("FAILED");
    await expect(page.getByRole("heading", { name: "No operations match these filters." })).toBeVisible();

    // "Created more than 5 min ago" excludes everything this test just made.
    await search.getByLabel("Phase").selectOption("");
    await search.getByLabel("Created").selectOption("5m");
    await expect(page).toHaveURL(/[?&]age=5m/);
    await expect(page.getByRole("heading", { name: "No operations match these filters." })).toBeVisible();

    await search.getByRole("button", { name: "Clear filters" }).click();
    await expect(page).toHaveURL(`${E2E_BASE_URL}/`);
    await expect(search.getByLabel("Tool")).toHaveValue("");
  });

  test("pages through 30 operations ten at a time, without duplicates, and back", async ({ page, login, request }) => {
    const seed = new LedgerSeed(request);
    const tool = await seed.tool("IDEMPOTENT");
    const seeded: string[] = [];
    for (let i = 0; i < 30; i++) seeded.push((await seed.plan(tool, { args: { n: i } })).id);
    const newestFirst = [...seeded].reverse();

    await login("viewer");
    await page.goto(`/?tool=${tool}&limit=10`);
    const pager = page.getByRole("navigation", { name: "Pages of the ledger" });
    await expectRows(page, newestFirst.slice(0, 10));
    await expect(pager.getByRole("button", { name: "← Newer" })).toBeDisabled();

    await pager.getByRole("button", { name: "Older →" }).click();
    await expect(page).toHaveURL(/[?&]cursors=/);
    await expectRows(page, newestFirst.slice(10, 20));
    // Older pages hold still: only the newest page refreshes itself.
    await expect(page.getByText("Paused while you browse older pages")).toBeVisible();
    await expect(page.getByRole("button", { name: /live updates/ })).toHaveCount(0);

    await pager.getByRole("button", { name: "Older →" }).click();
    await expectRows(page, newestFirst.slice(20, 30));
    await expect(pager.getByRole("button", { name: "Older →" })).toBeDisabled();
    await expect(page.getByText("no older operations")).toBeVisible();

    await pager.getByRole("button", { name: "← Newer" }).click();
    await expectRows(page, newestFirst.slice(10, 20));
    // The browser's Back retraces the pages, filters and page size included.
    await page.goBack();
    await expectRows(page, newestFirst.slice(20, 30));
    await page.goBack();
    await expectRows(page, newestFirst.slice(10, 20));
    await page.goBack();
    await expectRows(page, newestFirst.slice(0, 10));
    await expect(page).toHaveURL(new RegExp(`/\\?tool=${tool.replaceAll(".", "\\.")}&limit=10$`));
  });

  test("the newest page refreshes live; Pause holds the view and keeps the filters", async ({
    page,
    login,
    request,
  }) => {
    // Two polls and an 11 s pause by design: past the default 30 s on a loaded 2-core machine.
    test.setTimeout(60_000);
    const seed = new LedgerSeed(request);
    const tool = await seed.tool("PURE");
    const a = await seed.plan(tool);

    await login("viewer");
    await page.goto(`/?tool=${tool}`);
    await expectRows(page, [a.id]);
    await expect(page.getByText("Live, every 5 s")).toBeVisible();

    const b = await seed.plan(tool);
    await expect.poll(() => rowIds(page), { timeout: 12_000 }).toEqual([b.id, a.id]);

    await page.getByRole("button", { name: "Pause live updates" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Paused" })).toBeVisible();
    const c = await seed.plan(tool);
    // Two polling periods pass without the new row appearing.
    await page.waitForTimeout(11_000);
    expect(await rowIds(page)).toEqual([b.id, a.id]);
    await expect(page).toHaveURL(new RegExp(`[?&]tool=${tool.replaceAll(".", "\\.")}`));

    await page.getByRole("button", { name: "Resume live updates" }).click();
    await expect.poll(() => rowIds(page), { timeout: 12_000 }).toEqual([c.id, b.id, a.id]);
  });
});

test.describe("when something is wrong", () => {
  // The browser logs the deliberate 500 and 404 as failed resource loads.
  test.use({ allowedConsoleErrors: [/status of (500|404)/] });

  test("a failed load says so, changes nothing, and Try again recovers", async ({ page, login, request }) => {
    const seed = new LedgerSeed(request);
    const tool = await seed.tool("PURE");
    const op = await seed.plan(tool);

    await login("viewer");
    // The first page comes with the HTML; a page the browser fetches (another filter) is the one that fails here.
    await page.goto(`/?tool=${tool}`);
    await expectRows(page, [op.id]);
    await page.route("**/api/console/operations?**", (route) =>
      route.fulfill({
        status: 500,
        contentType: "application/problem+json",
        body: JSON.stringify({ code: "internal_error", detail: "boom" }),
      }),
    );
    const search = page.getByRole("search", { name: "Filter operations" });
    await search.getByLabel("Phase").selectOption("PLANNED");
    const alert = page.getByRole("alert").filter({ hasText: "Could not load the ledger" });
    await expect(alert).toBeVisible({ timeout: 20_000 });
    await expect(alert).toContainText("Nothing was changed.");

    await page.unroute("**/api/console/operations?**");
    await alert.getByRole("button", { name: "Try again" }).click();
    await expectRows(page, [op.id]);
  });

  test("an operation id that does not exist gets a page that says so", async ({ page, login }) => {
    await login("viewer");
    // The console streams (loading.tsx), so the status is already sent; the page itself must say what happened.
    await page.goto("/operations/01ZZZZZZZZZZZZZZZZZZZZZZZZ");
    await expect(page.getByRole("heading", { level: 1, name: "There is no operation with this id" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Open the ledger" })).toBeVisible();
  });
});

test.describe("queues and live counts", () => {
  test("Unknowns and Approvals list their operations longest-waiting first, and the nav counts follow", async ({
    page,
    login,
    request,
  }) => {
    test.slow();
    const seed = new LedgerSeed(request);
    const unknownTool = await seed.tool("UNKNOWN");
    const nonRetryable = await seed.tool("NON_RETRYABLE");
    const u1 = await seed.unknown(unknownTool);
    const u2 = await seed.unknown(unknownTool);
    const waiting = await seed.awaitingApproval(nonRetryable);

    await login("viewer");
    await page.goto("/unknowns");
    await expect(page.getByRole("heading", { level: 1, name: "Unknowns" })).toBeVisible();
    const unknownRows = page.locator("table[aria-label='Unknown operations'] tbody tr");
    await expect(unknownRows.locator(`[data-operation-id='${u1.op.id}']`)).toBeVisible();
    const order = await unknownRows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-operation-row")));
    expect(order.indexOf(u1.op.id)).toBeLessThan(order.indexOf(u2.op.id));
    const u1Row = unknownRows.filter({ has: page.locator(`[data-operation-id='${u1.op.id}']`) });
    await expect(u1Row.getByText("timeout")).toBeVisible();
    await expect(u1Row.getByText(/no response from the provider/)).toBeVisible();
    await expect(u1Row.getByText(unknownTool)).toBeVisible();
    await expect(u1Row.locator("time")).toHaveText(/min|under 1 min/);

    // The page's count and the nav badge agree with the ledger.
    await expect
      .poll(async () => {
        const api = await countInPhase(seed, "UNKNOWN");
        return (
          (await navCount(page, "Unknowns")) === api &&
          (await page.locator("[data-queue-count]").getAttribute("data-queue-count")) === String(api)
        );
      })
      .toBe(true);
    await screenshot(page, "operations-unknowns");

    // A new unknown shows up in the badge without a reload.
    const before = (await navCount(page, "Unknowns")) ?? 0;
    const u3 = await seed.unknown(unknownTool);
    await expect.poll(async () => (await navCount(page, "Unknowns")) ?? 0, { timeout: 12_000 }).toBeGreaterThan(before);
    await expect(unknownRows.locator(`[data-operation-id='${u3.op.id}']`)).toBeVisible({ timeout: 12_000 });

    await page
      .getByRole("navigation", { name: "Console" })
      .getByRole("link", { name: /^Approvals\b/ })
      .click();
    await expect(page.getByRole("heading", { level: 1, name: "Approvals" })).toBeVisible();
    const approvalRow = page
      .locator("table[aria-label='Operations awaiting approval'] tbody tr")
      .filter({ has: page.locator(`[data-operation-id='${waiting.op.id}']`) });
    await expect(approvalRow.getByText(/NON_RETRYABLE tool can create an unacceptable new effect/)).toBeVisible();
    await expect
      .poll(async () => (await navCount(page, "Approvals")) === (await countInPhase(seed, "AWAITING_APPROVAL")))
      .toBe(true);
    await screenshot(page, "operations-approvals");

    await page.goto("/");
    await expect(rows(page).first()).toBeVisible();
    await screenshot(page, "operations-ledger");
  });
});

test.describe("acting on an operation", () => {
  test("an operator approves a NON_RETRYABLE retry: exactly one more dispatch goes", async ({
    page,
    login,
    request,
  }) => {
    const seed = new LedgerSeed(request);
    const tool = await seed.tool("NON_RETRYABLE");
    const { op, workerId } = await seed.awaitingApproval(tool);

    const operator = await login("operator");
    await page.goto(operationPage(op.id));
    const decision = page.getByRole("region", { name: "What the retry gate says now" });
    await expect(decision.getByText("Needs approval")).toBeVisible();
    await expect(
      decision.getByText(/repeating a NON_RETRYABLE tool can create an unacceptable new effect/),
    ).toBeVisible();

    await page.getByRole("button", { name: "Approve retry", exact: true }).click();
    await expect(dialog(page)).toBeVisible();
    await expect(dialog(page).getByRole("heading", { name: `Approve attempt 2 of ${tool}?` })).toBeVisible();
    await expect(dialog(page)).toContainText("exactly one more attempt");
    // A reason is required: without one nothing is sent.
    await dialog(page).getByRole("button", { name: "Confirm approval" }).click();
    await expect(dialog(page)).toBeVisible();
    expect((await seed.get(op.id)).phase).toBe("AWAITING_APPROVAL");

    await dialog(page)
      .getByLabel(/Reason/)
      .fill("Provider confirmed the first charge never reached them.");
    await dialog(page).getByRole("button", { name: "Confirm approval" }).click();
    await expect(dialog(page)).toBeHidden();
    await expect(
      page.getByRole("status").filter({ hasText: "Approved: attempt 2 may be dispatched once" }),
    ).toBeVisible();
    await expect(page.locator("header").getByText("Retry scheduled")).toBeVisible();
    await expect(page.getByRole("button", { name: "Approve retry" })).toHaveCount(0);
    const approvedEntry = page.locator("[data-action='operation.approved']");
    await expect(approvedEntry).toContainText(operator.email);
    await expect(approvedEntry).toContainText("Provider confirmed the first charge never reached them.");

    // The worker may now dispatch exactly once.
    const fence = await seed.claim(op.id, workerId);
    const second = await seed.dispatch(op.id, fence);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.attempt).toBe(2);
    const again = await seed.dispatch(op.id, fence);
    expect(again.status).toBe(409);
    await seed.outcome(op.id, { fence, result: "failed", error: { kind: "server_error", httpStatus: 503 } });
    const third = await seed.dispatch(op.id, fence);
    expect(third.status).toBe(409);
    expect(third.body.code).toBe("approval_required");

    const after = await seed.get(op.id);
    expect(after.phase).toBe("AWAITING_APPROVAL");
    expect(after.attempt).toBe(2);
    const approvals = (after.audit ?? []).filter((e) => e.action === "operation.approved");
    expect(approvals).toHaveLength(1);
    // The audit names the person by their user id; the email is the label people read.
    expect(approvals[0]).toMatchObject({ actorId: await userIdOf(operator.email), actorLabel: operator.email });

    // The page follows by itself: back in the queue, with both attempts in the timeline.
    await expect(page.locator("header").getByText("Awaiting approval")).toBeVisible({ timeout: 12_000 });
    await expect(page.locator("[data-timeline='attempt']")).toHaveCount(2);
    await screenshot(page, "operations-operation");
  });

  test("an operator reconciles unknowns both ways: happened with a provider id, or not (with one retry approved)", async ({
    page,
    login,
    request,
  }) => {
    const seed = new LedgerSeed(request);
    // The provider lookup asks the console's own health endpoint, whose {"status":"ok"} the contract reads as
    // "happened".
    const tool = await seed.tool("UNKNOWN", {
      reconcile: {
        method: "lookup",
        urlTemplate: `${E2E_BASE_URL}/api/health?key={idempotencyKey}`,
        statusField: "status",
        appliedValues: ["ok"],
        providerIdField: "status",
      },
    });
    const happened = await seed.unknown(tool);
    const didNot = await seed.unknown(tool);

    const operator = await login("operator");
    await page.goto(operationPage(happened.op.id));
    await expect(
      page.getByRole("region", { name: "What the retry gate says now" }).locator("[data-decision='RECONCILE']"),
    ).toBeVisible();
    await page.getByRole("button", { name: "Reconcile", exact: true }).click();
    await expect(dialog(page).getByRole("heading", { name: `Reconcile attempt 1 of ${tool}` })).toBeVisible();

    // The lookup reads only: it fills in the outcome, the provider id and the evidence, and the person still confirms.
    await dialog(page).getByRole("button", { name: "Run provider lookup" }).click();
    const lookup = dialog(page).getByRole("region", { name: "Provider lookup" });
    await expect(lookup).toContainText('status is "ok", which means the effect happened');
    await expect(lookup).toContainText("HTTP 200");
    await expect(dialog(page).getByLabel(/Effect happened/)).toBeChecked();
    await expect(dialog(page).getByLabel(/Provider id/)).toHaveValue("ok");
    await expect(dialog(page).getByLabel(/Evidence/)).toHaveValue(/Provider lookup GET .*\/api\/health/);
    expect((await seed.get(happened.op.id)).phase).toBe("UNKNOWN");
    await dialog(page)
      .getByLabel(/Reason/)
      .fill("Lookup by idempotency key shows the charge.");
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, "operations-reconcile-dialog.png") });
    // The provider id is required when the effect happened.
    await dialog(page)
      .getByLabel(/Provider id/)
      .fill("");
    await dialog(page).getByRole("button", { name: "Record reconciliation" }).click();
    await expect(dialog(page)).toBeVisible();
    await dialog(page)
      .getByLabel(/Provider id/)
      .fill("ch_e2e_123");
    await dialog(page).getByRole("button", { name: "Record reconciliation" }).click();
    await expect(dialog(page)).toBeHidden();
    await expect(page.getByRole("status").filter({ hasText: "effect happened" })).toBeVisible();
    await expect(page.locator("header").getByText("Reconciled")).toBeVisible();
    await expect(page.getByRole("region", { name: "What the retry gate says now" })).toContainText("ch_e2e_123");
    await expect(page.getByText("Reconciliation evidence")).toBeVisible();
    await expect(page.getByRole("button", { name: /^(Reconcile|Reject|Approve retry)$/ })).toHaveCount(0);

    const applied = await seed.get(happened.op.id);
    expect(applied).toMatchObject({ phase: "RECONCILED", evidence: "applied", providerId: "ch_e2e_123" });
    expect(applied.audit?.find((e) => e.action === "operation.reconciled")).toMatchObject({
      actorId: await userIdOf(operator.email),
      actorLabel: operator.email,
    });

    await page.goto(operationPage(didNot.op.id));
    await page.getByRole("button", { name: "Reconcile", exact: true }).click();
    await dialog(page)
      .getByLabel(/Effect did not happen/)
      .check();
    await dialog(page)
      .getByLabel(/Also approve one retry/)
      .check();
    await dialog(page)
      .getByLabel(/Reason/)
      .fill("Provider has no record of the key.");
    await dialog(page).getByRole("button", { name: "Record reconciliation" }).click();
    await expect(dialog(page)).toBeHidden();
    await expect(page.getByRole("status").filter({ hasText: "attempt 2 is approved" })).toBeVisible();
    await expect(page.getByRole("region", { name: "What the retry gate says now" })).toContainText(
      "attempt 2 may be dispatched once",
    );

    const notApplied = await seed.get(didNot.op.id);
    expect(notApplied).toMatchObject({ phase: "RECONCILED", evidence: "not_applied", approvedAttempt: 2 });
    const fence = await seed.claim(didNot.op.id, didNot.workerId);
    const retry = await seed.dispatch(didNot.op.id, fence);
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    expect(retry.body.attempt).toBe(2);
  });

  test("an operator rejects an operation waiting for approval", async ({ page, login, request }) => {
    const seed = new LedgerSeed(request);
    const tool = await seed.tool("NON_RETRYABLE");
    const { op } = await seed.awaitingApproval(tool);

    const operator = await login("operator");
    await page.goto(operationPage(op.id));
    await page.getByRole("button", { name: "Reject", exact: true }).click();
    await expect(dialog(page)).toContainText("This cannot be undone");
    await dialog(page)
      .getByLabel(/Reason/)
      .fill("Customer cancelled the order.");
    await dialog(page).getByRole("button", { name: "Confirm rejection" }).click();
    await expect(dialog(page)).toBeHidden();
    await expect(page.locator("header").getByText("Rejected")).toBeVisible();
    await expect(page.getByRole("region", { name: "What the retry gate says now" })).toContainText(
      "Customer cancelled the order.",
    );
    await expect(page.getByRole("button", { name: /^(Reconcile|Reject|Approve retry)$/ })).toHaveCount(0);

    const rejected = await seed.get(op.id);
    expect(rejected.phase).toBe("REJECTED");
    expect(rejected.rejectionReason).toContain("Customer cancelled the order.");
    expect(rejected.rejectionReason).toContain(operator.email);
  });

  test("two operators approving the same operation: one grant, and the other is told someone acted first", async ({
    page,
    login,
    request,
    browser,
  }) => {
    const seed = new LedgerSeed(request);
    const tool = await seed.tool("NON_RETRYABLE");
    const { op } = await seed.awaitingApproval(tool);

    await login("operator");
    const other = await secondSession(browser, "operator");
    try {
      for (const p of [page, other]) {
        await p.goto(operationPage(op.id));
        await p.getByRole("button", { name: "Approve retry", exact: true }).click();
        await dialog(p)
          .getByLabel(/Reason/)
          .fill("Approving during the incident.");
      }
      await Promise.all([page, other].map((p) => dialog(p).getByRole("button", { name: "Confirm approval" }).click()));

      const granted = (p: Page) => p.getByRole("status").filter({ hasText: "Approved: attempt 2" });
      const refused = (p: Page) =>
        p.getByRole("alert").filter({ hasText: "Someone else acted on this operation first" });
      await expect
        .poll(async () => {
          const outcomes = await Promise.all(
            [page, other].map(async (p) =>
              (await granted(p).count()) > 0 ? "granted" : (await refused(p).count()) > 0 ? "refused" : "waiting",
            ),
          );
          return outcomes.sort().join(",");
        })
        .toBe("granted,refused");
      // The refused page shows what really happened.
      for (const p of [page, other]) await expect(p.locator("header").getByText("Retry scheduled")).toBeVisible();

      const after = await seed.get(op.id);
      expect(after.approvedAttempt).toBe(2);
      expect((after.audit ?? []).filter((e) => e.action === "operation.approved")).toHaveLength(1);
    } finally {
      await other.context().close();
    }
  });
});

test.describe("observe mode", () => {
  test("a call that enforcing would have held for approval went out, and its page says what enforcing would have done", async ({
    page,
    login,
    request,
  }) => {
    const seed = new LedgerSeed(request);
    const tool = await seed.tool("NON_RETRYABLE", { approval: "required", mode: "observe" });
    // Observe mode lets the dispatch through and records the hold it would have made.
    const { op } = await seed.dispatched(tool);
    expect(op.phase).toBe("DISPATCHED");
    const stored = await seed.call<{ via: string | null; wouldHave: { code: string; reason: string } | null }>(
      "GET",
      `/api/v1/operations/${op.id}`,
    );
    expect(stored.body.via).toBeNull();
    expect(stored.body.wouldHave).toMatchObject({ code: "approval_required" });

    await login("viewer");
    await page.goto(`/?tool=${tool}`);
    await expectRows(page, [op.id]);
    // Planned over the agent API, not through the MCP gateway: no MCP mark.
    await expect(rows(page).first().locator("[data-via]")).toHaveCount(0);

    await page.goto(operationPage(op.id));
    const panel = page.getByRole("region", {
      name: "Observe mode: enforcing would have held it for a person's approval.",
    });
    await expect(panel).toBeVisible();
    await expect(panel).toHaveAttribute("data-would-have", "approval_required");
    await expect(panel).toContainText(`The contract of ${tool} only observes`);
    await expect(panel).toContainText(`The gate's reason: ${stored.body.wouldHave?.reason ?? "?"}`);
    await expect(page.getByRole("region", { name: "Identity" })).toContainText("over the agent API");
    await expect(page.locator("[data-via]")).toHaveCount(0);
    await screenshot(page, "operation-observe-mode");
  });
});

test.describe("roles", () => {
  test("a viewer sees the decision but no action buttons", async ({ page, login, request }) => {
    const seed = new LedgerSeed(request);
    const waiting = await seed.awaitingApproval(await seed.tool("NON_RETRYABLE"));
    const unknown = await seed.unknown(await seed.tool("UNKNOWN"));

    await login("viewer");
    for (const op of [waiting.op, unknown.op]) {
      await page.goto(operationPage(op.id));
      await expect(page.getByRole("region", { name: "What the retry gate says now" })).toContainText(
        op.decision.reason,
      );
      await expect(page.getByText("You can look but not act")).toBeVisible();
      await expect(page.getByRole("button", { name: /^(Approve retry|Reject|Reconcile)$/ })).toHaveCount(0);
    }
  });

  test("a forged approve action sent with a viewer's session is refused and changes nothing", async ({
    page,
    login,
    request,
    browser,
  }) => {
    const seed = new LedgerSeed(request);
    const tool = await seed.tool("NON_RETRYABLE");
    const captured = await seed.awaitingApproval(tool);
    const target = await seed.awaitingApproval(tool);
    const control = await seed.awaitingApproval(tool);

    // Capture a real action request from an operator's browser.
    await login("operator");
    await page.goto(operationPage(captured.op.id));
    await page.getByRole("button", { name: "Approve retry", exact: true }).click();
    await dialog(page)
      .getByLabel(/Reason/)
      .fill("captured for replay");
    const [actionRequest] = await Promise.all([
      page.waitForRequest((r) => r.method() === "POST" && r.headers()["next-action"] !== undefined),
      dialog(page).getByRole("button", { name: "Confirm approval" }).click(),
    ]);
    await expect(page.getByRole("status").filter({ hasText: "Approved" })).toBeVisible();
    const actionId = actionRequest.headers()["next-action"];
    const body = actionRequest.postData() ?? "";
    expect(actionId).toBeTruthy();
    expect(body).toContain(captured.op.id);

    const replay = (from: Page, id: string) =>
      from.request.post(operationPage(id), {
        headers: {
          "next-action": actionId ?? "",
          "content-type": actionRequest.headers()["content-type"] ?? "text/plain;charset=UTF-8",
          accept: "text/x-component",
          origin: E2E_BASE_URL,
        },
        data: body.replaceAll(captured.op.id, id).replace("captured for replay", "forged"),
        failOnStatusCode: false,
      });

    const viewer = await secondSession(browser, "viewer");
    try {
      const forged = await replay(viewer, target.op.id);
      // The action ran and refused on the role, inside the action (not a CSRF or routing rejection).
      expect(await forged.text()).toContain('"code":"forbidden"');
      const unchanged: SeededOperation = await seed.get(target.op.id);
      expect(unchanged.phase).toBe("AWAITING_APPROVAL");
      expect(unchanged.approvedAttempt).toBeNull();
      expect((unchanged.audit ?? []).filter((e) => e.action === "operation.approved")).toHaveLength(0);

      // The same replay from the operator's session works, so the forged request was well-formed.
      const genuine = await replay(page, control.op.id);
      expect(await genuine.text()).toContain('"ok":true');
      expect((await seed.get(control.op.id)).phase).toBe("RETRY_SCHEDULED");
    } finally {
      await viewer.context().close();
    }
  });
});
