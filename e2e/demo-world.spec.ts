// The main job on a laptop, through the browser: the demo world's providers and agent make an UNKNOWN payment, a lost
// rollout answer and an ambiguous email; the payment is reconciled by an operator through the provider lookup, the
// rollout by the server's own lookup, and the email is sent a second time only after one person's approval. And the
// demo world as `npm start` runs it: the desk's calls come through the MCP gateway into the ledger beside the others.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { APIRequestContext, Page } from "@playwright/test";
import { writeDemoUpstreamsFile } from "@/lib/demo/mcp/demo-upstreams";
import type { CallStatus } from "@/lib/demo/agent";
import { demoTool, type DemoTool } from "@/lib/demo/tools";
import { api, expectJson, userIdOf, type OperationDetail } from "./fixtures/api";
import { signInThroughApi } from "./fixtures/login";
import { uniqueName } from "./fixtures/seed";
import { extraPort, ServerProcess } from "./fixtures/server-process";
import {
  E2E_PORT,
  REPO_ROOT,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  TEST_BOOTSTRAP_API_KEY,
} from "./fixtures/test-env";
import { freshDatabase } from "./scale-out/support/fresh-database";
import { screenshot } from "./demo/screenshot";
import { expect, test, type E2eDemoWorld } from "./demo/world";

function tool(name: string): DemoTool {
  const found = demoTool(name);
  if (!found) throw new Error(`the demo has no tool ${name}`);
  return found;
}

async function ledger(request: APIRequestContext, id: string): Promise<OperationDetail> {
  return expectJson(await api(request).getOp(id), 200);
}

/**
 * The agent runs the operation again with its own key. A worker whose earlier run still holds the lease is turned
 * away (lease_lost) until the lease runs out: it asks again until the gate itself answers.
 */
async function askAgain(world: E2eDemoWorld, op: OperationDetail): Promise<CallStatus | undefined> {
  let status: CallStatus | undefined;
  await expect
    .poll(async () => (status = (await world.agent.resume(op))?.status), {
      message: world.agentLog.join("\n"),
      timeout: 10_000,
    })
    .not.toBe("lease_lost");
  return status;
}

const dialog = (page: Page) => page.getByRole("dialog");
const gatePanel = (page: Page) => page.getByRole("region", { name: "What the retry gate says now" });
const phaseInHeader = (page: Page) => page.locator("article[aria-labelledby='operation-title'] > header [data-phase]");

test.describe("the demo world in the browser", () => {
  // Each test waits out one or two agent leases (3 s) on a machine shared with other builds: room above the default 30
  // s.
  test.describe.configure({ timeout: 60_000 });

  test("an UNKNOWN payment is reconciled through the provider lookup and ends RECONCILED with the provider's id", async ({
    page,
    login,
    request,
    demoWorld: world,
  }) => {
    // The provider commits the charge, then never answers: the agent times out and the ledger says UNKNOWN.
    await world.fault({ tool: "payments", fault: "timeout_after_commit", count: 1 });
    const args = { customer: "cus_ada", amountCents: 4200, currency: "EUR", order: uniqueName("ord") };
    const result = await world.agent.callOnce(0, tool("payments.charge"), args);
    expect(result?.status, world.agentLog.join("\n")).toBe("needs_reconcile");
    const id = result?.operation.id ?? "";
    const key = result?.operation.idempotencyKey ?? "";
    expect((await ledger(request, id)).phase).toBe("UNKNOWN");
    const charges = await world.effects("payments", id);
    expect(charges).toHaveLength(1);
    const charge = charges[0]!;
    expect(charge).toMatchObject({ kind: "charge", idempotencyKey: key });

    const operator = await login("operator");
    await page.goto("/unknowns");
    const row = page
      .locator("table[aria-label='Unknown operations'] tbody tr")
      .filter({ has: page.locator(`[data-operation-id='${id}']`) });
    await expect(row).toBeVisible();
    await expect(row.getByText("payments.charge")).toBeVisible();
    await expect(row.getByText(/timeout/).first()).toBeVisible();
    await screenshot(page, "demo-world-unknowns");

    await row.locator(`[data-operation-id='${id}']`).click();
    await expect(page).toHaveURL(new RegExp(`/operations/${id}$`));
    await expect(phaseInHeader(page)).toHaveText("Unknown");
    await page.getByRole("button", { name: "Reconcile", exact: true }).click();
    await dialog(page).getByRole("button", { name: "Run provider lookup" }).click();

    // The evidence: what the provider answered, its id for the charge, and the answer itself.
    const lookup = dialog(page).getByRole("region", { name: "Provider lookup" });
    await expect(lookup).toHaveAttribute("data-applied", "applied");
    await expect(lookup.locator("[data-field='status']")).toHaveText("HTTP 200");
    await expect(lookup.locator("[data-field='provider-id']")).toContainText(charge.id);
    await expect(lookup).toContainText('status is "succeeded", which means the effect happened');
    await expect(lookup.locator("pre")).toContainText(`"id": "${charge.id}"`);
    await expect(lookup.locator("pre")).toContainText(`"idempotencyKey": "${key}"`);
    await expect(lookup).toContainText(`/payments/v1/charges/by-key/${key}`);
    await expect(dialog(page).getByLabel(/Effect happened/)).toBeChecked();
    await expect(dialog(page).getByLabel(/Provider id/)).toHaveValue(charge.id);
    // The lookup only reads.
    expect((await ledger(request, id)).phase).toBe("UNKNOWN");
    await dialog(page)
      .getByLabel(/Reason/)
      .fill("The provider's lookup by idempotency key shows the charge succeeded.");
    await screenshot(page, "demo-world-reconcile-lookup");

    await dialog(page).getByRole("button", { name: "Record reconciliation" }).click();
    await expect(dialog(page)).toBeHidden();
    await expect(phaseInHeader(page)).toHaveText("Reconciled");
    await expect(gatePanel(page)).toContainText(charge.id);
    await expect(page.getByRole("region", { name: "Identity" })).toContainText(charge.id);
    // What the operator looked at stays with the operation, readable: the lookup's answer and who recorded it.
    const recorded = page.getByRole("region", { name: "Reconciliation evidence" });
    await expect(recorded).toContainText(`Recorded by ${operator.email}`);
    await expect(recorded.locator("[data-evidence='note']")).toContainText("HTTP 200");
    await expect(recorded.locator("[data-evidence='note']")).toContainText(`Provider id: ${charge.id}.`);
    await screenshot(page, "demo-world-payment-reconciled");

    const reconciled = await ledger(request, id);
    expect(reconciled).toMatchObject({ phase: "RECONCILED", evidence: "applied", providerId: charge.id });
    const byPerson = reconciled.audit.filter((e) => e.action === "operation.reconciled");
    expect(byPerson).toHaveLength(1);
    // The audit names the person by their user id; the email is the label people read.
    expect(byPerson[0]).toMatchObject({
      actorType: "user",
      actorId: await userIdOf(operator.email),
      actorLabel: operator.email,
    });

    // The agent coming back to it is answered from the ledger: the customer was charged exactly once.
    expect(await askAgain(world, reconciled)).toBe("confirmed");
    expect(await world.effects("payments", id)).toHaveLength(1);
  });

  test("a REPLAYABLE rollout whose answer was lost is reconciled by the provider lookup on its own, audited as the system", async ({
    page,
    login,
    request,
    demoWorld: world,
  }) => {
    await world.fault({ tool: "deploy", fault: "timeout_after_commit", count: 1 });
    const result = await world.agent.callOnce(0, tool("deploy.release"), {
      service: "checkout",
      version: uniqueName("2026.12"),
    });
    expect(result?.status, world.agentLog.join("\n")).toBe("needs_reconcile");
    const id = result?.operation.id ?? "";
    const rollouts = await world.effects("deploy", id);
    expect(rollouts).toHaveLength(1);
    const rollout = rollouts[0]!;

    // No person: the server's sweep looks the client token up and records what the provider says.
    await expect.poll(async () => (await ledger(request, id)).phase, { timeout: 10_000 }).toBe("RECONCILED");
    const op = await ledger(request, id);
    expect(op).toMatchObject({ evidence: "applied", providerId: rollout.id, decision: { action: "STOP" } });
    const reconciled = op.audit.filter((e) => e.action === "operation.reconciled");
    expect(reconciled).toHaveLength(1);
    expect(reconciled[0]).toMatchObject({ actorType: "system", fromPhase: "UNKNOWN", toPhase: "RECONCILED" });

    await login("viewer");
    await page.goto(`/operations/${id}`);
    await expect(phaseInHeader(page)).toHaveText("Reconciled");
    const event = page.locator("[data-timeline='audit'][data-action='operation.reconciled']");
    await expect(event).toContainText("by opledger itself");
    await expect(event).toContainText("provider lookup: status is");
    const recorded = page.getByRole("region", { name: "Reconciliation evidence" });
    await expect(recorded).toContainText("Recorded by auto-reconcile (provider lookup)");
    const lookup = recorded.getByRole("region", { name: "Provider lookup" });
    await expect(lookup).toHaveAttribute("data-applied", "applied");
    await expect(lookup.locator("[data-field='provider-id']")).toContainText(rollout.id);
    await expect(lookup).toContainText(`clientToken=${op.idempotencyKey}`);
    await screenshot(page, "demo-world-auto-reconciled");
    expect(await world.effects("deploy", id)).toHaveLength(1);
  });

  test("a second email goes out only because a person approved it: exactly two reach the provider", async ({
    page,
    login,
    request,
    demoWorld: world,
  }) => {
    // The email goes out, then the answer is lost: nobody can tell whether the customer got it.
    await world.fault({ tool: "email", fault: "timeout_after_commit", count: 1 });
    const args = { to: "grace@example.com", template: "receipt", ref: uniqueName("ref") };
    const result = await world.agent.callOnce(0, tool("email.send"), args);
    expect(result?.status, world.agentLog.join("\n")).toBe("needs_reconcile");
    const id = result?.operation.id ?? "";
    expect(await world.effects("email", id)).toHaveLength(1);

    // The email API has no lookup: the operator decides from what the customer says, and approves nothing yet.
    const operator = await login("operator");
    await page.goto(`/operations/${id}`);
    await page.getByRole("button", { name: "Reconcile", exact: true }).click();
    await dialog(page).getByRole("button", { name: "Run provider lookup" }).click();
    await expect(dialog(page).getByRole("region", { name: "Provider lookup" })).toContainText("has no provider lookup");
    await dialog(page)
      .getByLabel(/Effect did not happen/)
      .check();
    await expect(dialog(page).getByLabel(/Also approve one retry/)).not.toBeChecked();
    await dialog(page)
      .getByLabel(/Reason/)
      .fill("The customer says no receipt arrived.");
    await dialog(page).getByRole("button", { name: "Record reconciliation" }).click();
    await expect(dialog(page)).toBeHidden();
    await expect(phaseInHeader(page)).toHaveText("Reconciled");

    // The agent asks to send again; the gate hands the retry to a person, and asking twice sends nothing either.
    const reconciled = await ledger(request, id);
    for (let ask = 0; ask < 2; ask++) {
      expect(await askAgain(world, reconciled)).toBe("needs_approval");
      expect(await world.effects("email", id)).toHaveLength(1);
    }
    expect((await ledger(request, id)).phase).toBe("AWAITING_APPROVAL");

    await page
      .getByRole("navigation", { name: "Console" })
      .getByRole("link", { name: /^Approvals\b/ })
      .click();
    await expect(page.getByRole("heading", { level: 1, name: "Approvals" })).toBeVisible();
    const row = page
      .locator("table[aria-label='Operations awaiting approval'] tbody tr")
      .filter({ has: page.locator(`[data-operation-id='${id}']`) });
    await expect(row).toBeVisible();
    await expect(row.getByText("email.send")).toBeVisible();
    await screenshot(page, "demo-world-approvals");

    await row.locator(`[data-operation-id='${id}']`).click();
    await expect(phaseInHeader(page)).toHaveText("Awaiting approval");
    await page.getByRole("button", { name: "Approve retry", exact: true }).click();
    await expect(dialog(page).getByRole("heading", { name: "Approve attempt 2 of email.send?" })).toBeVisible();
    await dialog(page)
      .getByLabel(/Reason/)
      .fill("Resend the receipt once; the customer is waiting for it.");
    await dialog(page).getByRole("button", { name: "Confirm approval" }).click();
    await expect(
      page.getByRole("status").filter({ hasText: "Approved: attempt 2 may be dispatched once" }),
    ).toBeVisible();
    expect(await world.effects("email", id)).toHaveLength(1);

    // The agent's resumer finds the approved retry and sends it.
    await expect
      .poll(
        async () => {
          await world.agent.resumeOnce();
          return (await ledger(request, id)).phase;
        },
        { message: world.agentLog.join("\n"), timeout: 15_000 },
      )
      .toBe("CONFIRMED");
    const emails = await world.effects("email", id);
    expect(emails.map((e) => e.attempt)).toEqual([1, 2]);

    // Exactly one person's approval, given between the two sends.
    const done = await ledger(request, id);
    const approvals = done.audit.filter((e) => e.action === "operation.approved");
    expect(approvals).toHaveLength(1);
    expect(approvals[0]).toMatchObject({
      actorType: "user",
      actorId: await userIdOf(operator.email),
      actorLabel: operator.email,
    });
    expect(approvals[0]?.data).toMatchObject({ grantedAttempt: 2 });
    const [first, second] = done.attempts;
    const approvedAt = Date.parse(approvals[0]?.createdAt ?? "");
    expect(Date.parse(first?.dispatchedAt ?? "")).toBeLessThan(approvedAt);
    expect(approvedAt).toBeLessThan(Date.parse(second?.dispatchedAt ?? ""));

    await page.reload();
    await expect(phaseInHeader(page)).toHaveText("Confirmed");
    await expect(page.locator("[data-timeline='audit'][data-action='operation.approved']")).toHaveCount(1);
    await expect(page.locator("[data-timeline='attempt']")).toHaveCount(2);
    await screenshot(page, "demo-world-email-confirmed");
  });
});

/** Between the e2e demo providers (just above E2E_PORT) and the extra servers (E2E_PORT + 41 and up). */
const DEMO_SERVER_PROVIDER_PORT = E2E_PORT + 30;

test.describe("the demo world as npm start runs it", () => {
  // A server of its own with the demo on: start-up, then the MCP agent's first calls through the gateway.
  test.describe.configure({ timeout: 180_000 });

  test("the desk's calls come through the MCP gateway into the ledger beside the HTTP agent's, marked MCP", async ({
    browser,
  }) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "opledger-demo-world-"));
    const database = await freshDatabase(`demo_world_${E2E_PORT}`);
    let server: ServerProcess | null = null;
    try {
      server = await ServerProcess.start({
        name: "demo world",
        port: extraPort(2),
        databaseUrl: database.url,
        env: {
          OPLEDGER_DEMO: "on",
          // What `npm start` hands the server when the user names no upstreams file of their own.
          OPLEDGER_MCP_UPSTREAMS: writeDemoUpstreamsFile(dir, { rootDir: REPO_ROOT }),
          OPLEDGER_DEMO_PROVIDER_PORT: String(DEMO_SERVER_PROVIDER_PORT),
          OPLEDGER_DEMO_KILL_EVERY_MS: "0",
          OPLEDGER_DEMO_OUTAGE_EVERY_MS: "0",
        },
      });
      const url = server.url;
      type Listed = { id: string; tool: string; via: string | null };
      const listed = async (): Promise<Listed[]> => {
        const response = await fetch(`${url}/api/v1/operations?limit=200`, {
          headers: { authorization: `Bearer ${TEST_BOOTSTRAP_API_KEY}` },
        });
        expect(response.status).toBe(200);
        return ((await response.json()) as { items: Listed[] }).items;
      };
      let gateway: Listed | undefined;
      const running = server;
      await expect
        .poll(
          async () => {
            const items = await listed();
            gateway = items.find((op) => op.tool.startsWith("desk__") && op.via === "mcp");
            const overHttp = items.some((op) => !op.tool.startsWith("desk__") && op.via === null);
            return Boolean(gateway) && overHttp;
          },
          { timeout: 90_000, intervals: [1000] },
        )
        .toBe(true)
        .catch((error: unknown) => {
          // What the server and its demo said is what explains a gateway that called nothing.
          throw new Error(`${String(error)}\n--- the demo world's server said:\n${running.logs().slice(-4000)}`);
        });
      const viaMcp = gateway?.id ?? "";

      const context = await browser.newContext({ baseURL: url });
      try {
        const page = await context.newPage();
        await signInThroughApi(page, { email: TEST_ADMIN_EMAIL, password: TEST_ADMIN_PASSWORD });
        await page.goto("/");
        // The newest page moves on quickly: any gateway row is marked, any other row is not.
        const table = page.locator("table[aria-label='Operations'] tbody");
        const marked = table.locator("tr:has([data-via='mcp'])").first();
        await expect(marked).toContainText("desk__");
        await expect(marked.locator("[data-via='mcp']")).toHaveText(/^MCP/);
        await expect(table.locator("tr:not(:has([data-via]))").first()).not.toContainText("desk__");
        await screenshot(page, "demo-world-mcp-ledger");
        await page.goto(`/operations/${viaMcp}`);
        await expect(page.locator("article > header [data-via='mcp']")).toContainText("MCP");
        await expect(page.getByRole("region", { name: "Identity" })).toContainText("through the MCP gateway");
        await screenshot(page, "demo-world-mcp-operation");
      } finally {
        await context.close();
      }
    } finally {
      await server?.stop("SIGTERM");
      await database.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
