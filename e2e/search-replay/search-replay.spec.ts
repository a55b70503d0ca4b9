// Find anything, replay with edited arguments, and the keyboard on the queues (issue #18, items 3, 4 and 8): the top
// bar's search box finds an operation by a customer id in its arguments; a NON_RETRYABLE replay waits for a second
// person and links both ways, and the agent runs it; j/k/o move and open on a queue.
import path from "node:path";
import type { Page } from "@playwright/test";
import { runOperation } from "../../lib/executor";
import { createKey, personKey } from "../fixtures/api";
import { expect, test } from "../fixtures/login";
import { LedgerSeed, uniqueName, type SeededOperation } from "../fixtures/seed";
import { SCREENSHOT_DIR, TEST_ADMIN_EMAIL, E2E_BASE_URL } from "../fixtures/test-env";

async function screenshot(page: Page, name: string): Promise<void> {
  const before = page.viewportSize();
  await page.setViewportSize({ width: 1440, height: 900 });
  const height = await page.locator("main").evaluate((main) => main.scrollHeight + main.getBoundingClientRect().top);
  await page.setViewportSize({ width: 1440, height: Math.min(Math.max(Math.ceil(height), 900), 4000) });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `search-replay-${name}.png`) });
  if (before) await page.setViewportSize(before);
}

const searchBox = (page: Page) => page.getByRole("searchbox", { name: "Find an operation" });
const resultIds = (page: Page) =>
  page
    .locator("[data-search-results] tr[data-operation-row]")
    .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-operation-row")));

test.describe("find anything", () => {
  test("the search box finds operations by a customer id in their arguments; an exact id opens the operation", async ({
    page,
    login,
    request,
  }) => {
    const seed = new LedgerSeed(request);
    const tool = await seed.tool("IDEMPOTENT");
    const customer = uniqueName("cus");
    const first = await seed.plan(tool, { args: { customer: { id: customer }, amount: 1200 } });
    await seed.plan(tool, { args: { customer: { id: `${customer}x` }, amount: 1200 } });
    const third = await seed.plan(tool, { args: { lines: [{ sku: "A-1", customer }] } });

    await login("viewer");
    await page.goto("/");
    // The "/" shortcut listens once the page has hydrated: a press before that does nothing, so press until it lands
    // (never a second time once the box has focus, which would type the slash into it).
    await expect(async () => {
      if (!(await searchBox(page).evaluate((box) => box === document.activeElement))) await page.keyboard.press("/");
      await expect(searchBox(page)).toBeFocused({ timeout: 1000 });
    }).toPass();
    await page.keyboard.type(customer);
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(new RegExp(`/search\\?q=${customer.replace(".", "\\.")}$`));
    await expect.poll(() => resultIds(page)).toEqual([third.id, first.id]);
    await expect(page.locator(`tr[data-operation-row='${first.id}'] [data-matched]`)).toHaveText(
      "a value in the arguments",
    );
    await screenshot(page, "results");

    // Exact and case-sensitive: another case finds nothing, and says why.
    await searchBox(page).fill(customer.toUpperCase());
    await searchBox(page).press("Enter");
    await expect(page.getByRole("heading", { name: /No operation matches/ })).toBeVisible();
    await screenshot(page, "no-match");

    // The operation's own id opens it.
    await searchBox(page).fill(first.id);
    await searchBox(page).press("Enter");
    await expect(page).toHaveURL(new RegExp(`/operations/${first.id}$`));
    await expect(page.getByRole("heading", { name: tool })).toBeVisible();
  });

  test("through the API an agent key finds only its own operations", async ({ request }) => {
    const agentKey = await createKey(["agent"]);
    const mine = new LedgerSeed(request, agentKey.key);
    const others = new LedgerSeed(request);
    const tool = await mine.tool("IDEMPOTENT");
    const customer = uniqueName("cus");
    const own = await mine.plan(tool, { args: { customer } });
    const foreign = await others.plan(tool, { args: { customer } });

    const asAgent = await mine.call<{ items: SeededOperation[] }>(
      "GET",
      `/api/v1/operations?q=${encodeURIComponent(customer)}`,
    );
    expect(asAgent.status).toBe(200);
    expect(asAgent.body.items.map((o) => o.id)).toEqual([own.id]);
    const byForeignId = await mine.call<{ items: SeededOperation[] }>("GET", `/api/v1/operations?q=${foreign.id}`);
    expect(byForeignId.body.items).toEqual([]);
    const asOperator = await others.call<{ items: SeededOperation[] }>(
      "GET",
      `/api/v1/operations?q=${encodeURIComponent(customer)}`,
      undefined,
      (await personKey()).key,
    );
    expect(asOperator.body.items.map((o) => o.id)).toEqual([foreign.id, own.id]);
    const mixed = await mine.call<{ code: string }>("GET", `/api/v1/operations?q=${customer}&tool=${tool}`);
    expect(mixed.status).toBe(400);
  });
});

test.describe("replay with edited arguments", () => {
  test("a NON_RETRYABLE replay waits for a second person, both pages link to each other, and the agent runs it", async ({
    page,
    login,
    request,
  }) => {
    const agentKey = await createKey(["agent"]);
    const agent = new LedgerSeed(request, agentKey.key);
    const tool = await agent.tool("NON_RETRYABLE");
    const { op: original } = await agent.confirmed(tool, { args: { to: "ada@example.test", order: "ord-1" } });

    // Bad input first: nothing changes.
    const replayPath = `/api/v1/operations/${original.id}/replay`;
    const byAgent = await agent.call<{ code: string }>("POST", replayPath, { reason: "agent" });
    expect([byAgent.status, byAgent.body.code]).toEqual([403, "person_required"]);
    const badArgs = await agent.call<{ code: string }>(
      "POST",
      replayPath,
      { args: [1], reason: "r" },
      (await personKey()).key,
    );
    expect([badArgs.status, badArgs.body.code]).toEqual([422, "invalid_args"]);
    expect((await agent.get(original.id)).audit?.some((e) => e.action === "operation.replayed")).toBe(false);

    const operator = await login("operator");
    await page.goto(`/operations/${original.id}`);
    await page.getByRole("button", { name: "Replay…" }).click();
    const dialog = page.getByRole("dialog");
    await expect(dialog.locator("[data-replay-warning]")).toContainText("This executes the tool again");
    await expect(dialog).toContainText("you cannot approve it yourself");
    const args = dialog.getByLabel(/Arguments/);
    await expect(args).toHaveValue(JSON.stringify({ order: "ord-1", to: "ada@example.test" }, null, 2));
    await args.fill('{ "to": "ada@example.org", "order": "ord-1" ');
    await dialog.getByLabel(/Reason/).fill("The address had a typo; the customer asked for the receipt again.");
    await dialog.getByRole("button", { name: /Replay: run the tool again/ }).click();
    await expect(dialog.getByRole("alert")).toContainText("not valid JSON");
    await args.fill('{ "to": "ada@example.org", "order": "ord-1" }');
    await screenshot(page, "dialog");
    await dialog.getByRole("button", { name: /Replay: run the tool again/ }).click();

    await expect(page).not.toHaveURL(new RegExp(`/operations/${original.id}$`));
    const replayId = /\/operations\/([^/?#]+)$/.exec(page.url())?.[1] ?? "";
    await expect(page.locator(`[data-replay-of='${original.id}']`)).toBeVisible();
    await expect(page.locator("header").getByText("Awaiting approval")).toBeVisible();
    await screenshot(page, "replay-waiting");

    // The replaying person cannot approve it (four-eyes): the page offers no approval and says why (the ledger refuses
    // it anyway: e2e/security/red-team-four-eyes.ts sends the action).
    await expect(page.getByTestId("four-eyes-tied")).toContainText("another person must approve it");
    await expect(page.getByRole("button", { name: "Approve retry", exact: true })).toHaveCount(0);
    await screenshot(page, "four-eyes");

    const replay = await agent.get(replayId);
    expect(replay).toMatchObject({
      phase: "AWAITING_APPROVAL",
      replayOf: original.id,
      args: { to: "ada@example.org", order: "ord-1" },
    });
    expect(replay.idempotencyKey).not.toBe(original.idempotencyKey);
    expect(replay.audit?.[0]).toMatchObject({ action: "operation.planned", actorLabel: operator.email });

    // A second person approves; the agent's worker finds it among its PLANNED operations and runs it.
    const admin = await personKey(TEST_ADMIN_EMAIL);
    const approved = await agent.call(
      "POST",
      `/api/v1/operations/${replayId}/approve`,
      { reason: "checked the address" },
      admin.key,
    );
    expect(approved.status).toBe(200);
    const planned = await agent.call<{ items: SeededOperation[] }>("GET", `/api/v1/operations?phase=PLANNED&limit=200`);
    expect(planned.body.items.map((o) => o.id)).toContain(replayId);
    const sent: string[] = [];
    const result = await runOperation(
      replayId,
      (ctx) => {
        sent.push(ctx.idempotencyKey);
        return Promise.resolve({ ok: true, providerId: "msg-replayed" });
      },
      { client: { baseUrl: E2E_BASE_URL, apiKey: agentKey.key }, log: () => undefined },
    );
    expect(result.status).toBe("confirmed");
    expect(sent).toEqual([replay.idempotencyKey]);

    // The original links to its replay.
    await page.goto(`/operations/${original.id}`);
    await page.locator(`[data-replay-link='${replayId}']`).click();
    await expect(page).toHaveURL(new RegExp(`/operations/${replayId}$`));
    await expect(page.locator("header").getByText("Confirmed")).toBeVisible();
    await screenshot(page, "replay-confirmed");
  });
});

test.describe("keyboard on the queues", () => {
  test("j and k move a visible focus between rows, o opens, a opens the approval dialog, ? lists the keys", async ({
    page,
    login,
    request,
  }) => {
    const seed = new LedgerSeed(request);
    const tool = await seed.tool("NON_RETRYABLE");
    for (let i = 0; i < 3; i++) await seed.awaitingApproval(tool);

    await login("operator");
    await page.goto("/approvals");
    const rows = page.locator("tr[data-operation-row]");
    await expect(rows.first()).toBeVisible();
    const ids = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-operation-row") ?? ""));
    const current = () =>
      page
        .locator("tr[data-keyboard-current]")
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-operation-row")));

    // Typing in the search box is typing, not moving.
    await page.keyboard.press("/");
    await page.keyboard.type("jj");
    await expect(searchBox(page)).toHaveValue("jj");
    expect(await current()).toEqual([]);
    await searchBox(page).fill("");
    await page.locator("main").click({ position: { x: 5, y: 5 } });

    await page.keyboard.press("j");
    expect(await current()).toEqual([ids[0]]);
    await page.keyboard.press("j");
    await page.keyboard.press("j");
    expect(await current()).toEqual([ids[2]]);
    await page.keyboard.press("k");
    expect(await current()).toEqual([ids[1]]);
    await expect(rows.nth(1)).toBeFocused();
    await screenshot(page, "keyboard-focus");

    await page.keyboard.press("?");
    await expect(page.locator("[data-keyboard-help]")).toBeVisible();
    await screenshot(page, "keyboard-help");
    await page.keyboard.press("Escape");
    await expect(page.locator("[data-keyboard-help]")).toBeHidden();

    await page.keyboard.press("o");
    await expect(page).toHaveURL(new RegExp(`/operations/${ids[1]}$`));

    await page.goto("/approvals");
    await expect(rows.first()).toBeVisible();
    await page.locator("main").click({ position: { x: 5, y: 5 } });
    await page.keyboard.press("j");
    await page.keyboard.press("a");
    await expect(page).toHaveURL(new RegExp(`/operations/${ids[0]}$`));
    await expect(page.getByRole("dialog").getByRole("heading", { name: /^Approve attempt/ })).toBeVisible();
    await expect(page.getByRole("dialog").getByLabel(/Reason/)).toBeVisible();
  });
});
