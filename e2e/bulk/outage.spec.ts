// Issue #18, bulk actions: a provider outage left 2,000 sends UNKNOWN across two tools; one bulk lookup-reconcile in
// the console clears it. The preview's count equals the run's acted + skipped + stale; operations changed between
// preview and run are reported stale and left untouched; every operation has its audit record, plus one for the job.
import path from "node:path";
import type { Page } from "@playwright/test";
import { api, E2E_DB_URL, expectJson } from "../fixtures/api";
import { expect, test } from "../fixtures/login";
import { uniqueName } from "../fixtures/seed";
import { SCREENSHOT_DIR } from "../fixtures/test-env";
import { LookupProvider, lookupReconcile } from "./support/lookup-provider";
import { bulkLedger, type JobReport } from "./support/run-bulk-ledger";

const PER_TOOL = 1_000;
const CHANGED_MEANWHILE = 5;

async function screenshot(page: Page, name: string): Promise<void> {
  // The console scrolls inside <main>: the viewport holds the dialog, which is what these show.
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
}

let provider: LookupProvider;

test.beforeAll(async () => {
  provider = await LookupProvider.start(new Set());
});

test.afterAll(async () => {
  await provider.stop();
});

test("an outage of 2,000 UNKNOWN sends across two tools is cleared with one bulk lookup-reconcile", async ({
  page,
  login,
  request,
}) => {
  test.setTimeout(600_000);
  const runId = uniqueName("outage");
  const tools = [uniqueName("email.send"), uniqueName("sms.send")];
  for (const [i, tool] of tools.entries()) {
    const answer = await api(request).putContract(tool, {
      effect: i === 0 ? "IDEMPOTENT" : "NON_RETRYABLE",
      idempotencyKey: "required",
      reconcile: lookupReconcile(provider),
      approval: "not_required",
      maxAttempts: 3,
      backoff: { baseMs: 50, maxMs: 100 },
    });
    expect([200, 201], answer.text).toContain(answer.status);
  }
  const seeded = Date.now();
  const ops: { id: string; idempotencyKey: string }[] = [];
  for (const tool of tools) {
    ops.push(...(await bulkLedger<typeof ops>("seed-unknowns", E2E_DB_URL, tool, runId, String(PER_TOOL))));
  }
  const ids = ops.map((op) => op.id);
  console.log(`seeded ${ids.length} UNKNOWN operations in ${Date.now() - seeded} ms`);
  // Two thirds of the sends reached the provider before it timed out; the rest never did.
  ops.forEach((op, i) => {
    if (i % 3 !== 0) provider.sent.add(op.idempotencyKey);
  });

  await login("operator");
  await page.goto(`/?runId=${encodeURIComponent(runId)}&phase=UNKNOWN&limit=50`);
  await expect(page.locator("[data-operation-row]").first()).toBeVisible({ timeout: 60_000 });
  // Every row on the page, with the header's box, then everything that matches the filter: from the keyboard. The rows
  // come with the HTML; the box takes focus once the page is hydrated and its controls are enabled.
  const pageBox = page.getByRole("checkbox", { name: "Select every operation on this page" });
  await expect(pageBox).toBeEnabled();
  await pageBox.focus();
  await page.keyboard.press("Space");
  const bar = page.getByRole("region", { name: "Bulk actions" });
  await expect(bar).toContainText("50 selected");
  await bar.getByRole("button", { name: "Select all that match this filter" }).click();
  await expect(bar).toContainText("Selected: all that match this filter");
  await screenshot(page, "bulk-ledger-selection");
  await bar.getByRole("button", { name: "Look up and reconcile…" }).click();

  const dialog = page.getByRole("dialog");
  const preview = dialog.locator("[data-bulk-preview]");
  await expect(preview).toBeVisible({ timeout: 60_000 });
  await expect(dialog.locator("[data-bulk-matched]")).toHaveAttribute("data-bulk-matched", String(2 * PER_TOOL));
  await expect(dialog.locator("[data-bulk-acting]")).toHaveAttribute("data-bulk-acting", String(2 * PER_TOOL));
  for (const tool of tools) await expect(dialog.getByRole("cell", { name: tool })).toBeVisible();
  await screenshot(page, "bulk-preview");

  // Someone settles five of them by hand while the preview is open: the run must leave them alone.
  const changed = ids.slice(0, CHANGED_MEANWHILE);
  for (const id of changed) {
    const settled = await api(request).reconcile(id, {
      outcome: "applied",
      providerId: `manual-${id}`,
      evidence: "checked by hand",
      reason: "by hand",
    });
    expectJson(settled, 200);
  }

  await dialog.getByLabel(/^Reason/).fill("provider outage 02:10-02:20, cleared by lookup");
  await dialog.getByRole("button", { name: `Run on ${(2 * PER_TOOL).toLocaleString("en")} operations` }).click();
  const job = dialog.locator("[data-bulk-job]");
  await expect(job).toBeVisible();
  await expect(dialog.getByRole("progressbar", { name: "Bulk job progress" })).toBeVisible();
  await page.waitForTimeout(1_500);
  await screenshot(page, "bulk-progress");
  await expect(job).toHaveAttribute("data-bulk-status", "done", { timeout: 480_000 });
  await screenshot(page, "bulk-report");
  const jobId = await job.getAttribute("data-bulk-job");
  expect(jobId).toBeTruthy();

  const report = await bulkLedger<JobReport>("report", E2E_DB_URL, runId, jobId!);
  const row = report.job!;
  expect(row).toMatchObject({ status: "done", matched: 2 * PER_TOOL, stale: CHANGED_MEANWHILE, failed: 0 });
  // The preview's count is exactly the run's acted + skipped + stale.
  expect(row.acted + row.skipped + row.stale).toBe(row.matched);
  await expect(dialog.locator('[data-bulk-count="stale"]')).toHaveText(String(CHANGED_MEANWHILE));
  for (const id of changed) {
    await expect(dialog.locator(`[data-bulk-item="${id}"]`)).toHaveAttribute("data-bulk-result", "stale");
    const op = expectJson(await api(request).getOp(id), 200);
    expect(op.providerId).toBe(`manual-${id}`);
    expect(report.markedPerOperation[id], `the job left ${id} alone`).toBeUndefined();
  }
  // Every operation the job acted on has exactly one audit record of its own, by the person, naming the job.
  const marked = Object.values(report.markedPerOperation);
  expect(marked).toHaveLength(row.acted);
  expect(marked.every((n) => n === 1)).toBe(true);
  expect(report.markedActions).toEqual({ "operation.reconciled": row.acted });
  // What the provider proved is what was recorded (the gate may have moved a "did not happen" on since).
  const sent = new Set(ops.filter((_, i) => i % 3 !== 0).map((op) => op.id));
  expect(report.evidence.applied).toBe(sent.size + changed.filter((id) => !sent.has(id)).length);
  expect(report.evidence.not_applied).toBe(2 * PER_TOOL - (report.evidence.applied ?? 0));
  expect(report.phases.UNKNOWN).toBeUndefined();
  // And the job's own records: started, finished with its counts.
  expect(report.jobAudit.map((a) => a.action)).toEqual(["bulk.started", "bulk.finished"]);
  expect(report.jobAudit[1]?.data).toMatchObject({ status: "done", total: 2 * PER_TOOL, acted: row.acted });
  console.log(
    `bulk lookup-reconcile: ${row.acted} acted, ${row.skipped} skipped, ${row.stale} stale in ${
      Date.parse(row.finishedAt!) - Date.parse(row.startedAt)
    } ms; ${provider.lookups} lookups`,
  );
});
