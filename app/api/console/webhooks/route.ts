// GET /api/console/webhooks: every webhook, for the admin's Webhooks page.
import { consoleRoute } from "@/lib/api/console-route";
import { json } from "@/lib/api/problem";
import { listWebhooks } from "@/lib/notify/webhooks";

export const GET = consoleRoute("admin", async ({ ledger, now }) =>
  json({ items: await listWebhooks(ledger), at: now.toISOString() }),
);
