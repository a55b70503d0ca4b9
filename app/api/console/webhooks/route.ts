// GET /api/console/webhooks: every webhook, for the admin's Webhooks page.
import { consoleRoute } from "@/lib/console/console-route";
import { json } from "@/lib/platform/http/problem";
import { listWebhooks } from "@/lib/services/notify/webhooks";

export const GET = consoleRoute("admin", async ({ ledger, now }) =>
  json({ items: await listWebhooks(ledger), at: now.toISOString() }),
);
