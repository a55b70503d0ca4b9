// The Webhooks page (admin only): create a webhook with field messages for what the server refuses, send a test event,
// and watch it arrive, signed, at a receiver that verifies it with the standardwebhooks library, then in the delivery
// log. Its own server carries the webhook's secret, as a deployment would; viewers and operators get a 403.
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Browser, Page } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { WEBHOOK_EVENT_TYPES } from "@/lib/services/notify/event-types";
import { E2E_DB_URL } from "../fixtures/api";
import { ensureUser, expect, signInThroughApi, test, testUser, type TestRole } from "../fixtures/login";
import { uniqueName } from "../fixtures/seed";
import { extraPort, ServerProcess } from "../fixtures/server-process";
import { SCREENSHOT_DIR, TEST_WEBHOOK_SECRET } from "../fixtures/test-env";

// Every e2e server holds this secret (serverEnv): whichever instance's notifier sends the event signs it the same way.
const SECRET = TEST_WEBHOOK_SECRET;
const SECRET_NAME = "OPLEDGER_SECRET_E2E_WEBHOOK";

interface Received {
  type: string;
  data: Record<string, unknown>;
  id: string;
}

let server: ServerProcess;
let receiver: http.Server;
let receiverUrl = "";
const received: Received[] = [];
const refused: string[] = [];

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  const signer = new Webhook(SECRET);
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter((e): e is [string, string] => typeof e[1] === "string"),
      );
      try {
        const event = signer.verify(body, headers) as Omit<Received, "id">;
        received.push({ ...event, id: headers["webhook-id"] ?? "" });
        res.writeHead(204).end();
      } catch (error) {
        refused.push(String(error));
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/opledger`;
  server = await ServerProcess.start({
    name: "webhooks server",
    port: extraPort(8),
    databaseUrl: E2E_DB_URL,
    env: { [SECRET_NAME]: SECRET },
  });
});

test.afterAll(async () => {
  await server?.stop();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

async function session(browser: Browser, role: TestRole): Promise<Page> {
  const user = testUser(role);
  await ensureUser(user);
  const context = await browser.newContext({ baseURL: server.url });
  const page = await context.newPage();
  await signInThroughApi(page, user);
  return page;
}

/** The console scrolls inside its main area: the viewport is made as tall as the content for the picture. */
async function shot(page: Page, name: string): Promise<void> {
  const viewport = page.viewportSize() ?? { width: 1280, height: 720 };
  const height = await page.locator("main").evaluate((main) => main.scrollHeight + main.getBoundingClientRect().top);
  await page.setViewportSize({ width: viewport.width, height: Math.max(viewport.height, Math.ceil(height)) });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
  await page.setViewportSize(viewport);
}

test("an admin creates a webhook, sends a test event and sees it delivered and verified", async ({ browser }) => {
  test.setTimeout(120_000);
  const page = await session(browser, "admin");
  await page.goto("/webhooks");
  await expect(page.getByRole("heading", { name: "Webhooks", level: 1 })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Webhooks" })).toBeVisible();
  await shot(page, "webhooks-page");

  const name = uniqueName("oncall").replace(/\./g, "-");
  await page.getByRole("button", { name: "New webhook…" }).click();
  const dialog = page.getByRole("dialog", { name: "New webhook" });
  await dialog.getByLabel("Name").fill(name);
  await dialog.getByLabel("URL").fill("ftp://example.com/hook");
  await dialog.getByLabel("Signing secret variable").fill("NEXTAUTH_SECRET");
  await dialog.getByRole("checkbox", { name: /retries\.spike/ }).uncheck();
  await dialog.getByLabel("Reason").fill("page the on-call");
  await dialog.getByRole("button", { name: "Create webhook" }).click();
  await expect(dialog.getByLabel("URL")).toHaveAttribute("aria-invalid", "true");
  await expect(dialog.getByLabel("URL")).toHaveAccessibleDescription(/http or https/);
  await expect(dialog.getByLabel("Signing secret variable")).toHaveAccessibleDescription(/OPLEDGER_SECRET_/);
  await shot(page, "webhooks-form-errors");

  await dialog.getByLabel("URL").fill(receiverUrl);
  await dialog.getByLabel("Signing secret variable").fill(SECRET_NAME);
  await dialog.getByRole("button", { name: "Create webhook" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText(`Webhook ${name} was created.`)).toBeVisible();
  const section = page.locator(`[data-webhook="${name}"]`);
  await expect(section.getByText(receiverUrl)).toBeVisible();
  // Every event but retries.spike, which the form unchecked.
  const listed = section.getByRole("list", { name: "Events" }).getByRole("listitem");
  await expect(listed).toHaveCount(WEBHOOK_EVENT_TYPES.length - 1);
  await expect(section.getByTestId("delivery-log-empty")).toBeVisible();

  await section.getByRole("button", { name: `Send test event… webhook ${name}` }).click();
  const confirm = page.getByRole("dialog", { name: `Send a test event ${name}` });
  await confirm.getByRole("button", { name: "Send test event" }).click();
  await expect(confirm.getByLabel("Reason")).toHaveAccessibleDescription(/Give a reason/);
  await confirm.getByLabel("Reason").fill("check the pager works");
  await confirm.getByRole("button", { name: "Send test event" }).click();
  await expect(confirm).toBeHidden();

  const log = section.getByTestId(`delivery-log-${name}`);
  await expect(log.locator('[data-status="delivered"]')).toBeVisible({ timeout: 30_000 });
  await expect(log.getByText("webhook.test")).toBeVisible();
  await expect(log.getByText("HTTP 204")).toBeVisible();
  expect(refused).toEqual([]);
  const testEvent = received.find((r) => r.type === "webhook.test" && r.data.webhook === name);
  expect(testEvent?.data.url).toBe(`${server.url}/webhooks`);
  await shot(page, "webhooks-delivered");
});

test("viewers and operators get a 403, and no Webhooks entry in the navigation", async ({ browser }) => {
  for (const role of ["viewer", "operator"] as const) {
    const page = await session(browser, role);
    const response = await page.goto("/webhooks");
    expect(response?.status()).toBe(403);
    await page.goto("/");
    await expect(page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Webhooks" })).toHaveCount(
      0,
    );
    const api = await page.request.get("/api/console/webhooks");
    expect(api.status()).toBe(403);
  }
});
