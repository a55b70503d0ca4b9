// GET /api/console/webhooks/{name}/deliveries: one webhook's delivery log, newest first, polled by the Webhooks page.
import { consoleRoute } from "@/lib/console/console-route";
import { json } from "@/lib/platform/http/problem";
import { listDeliveries } from "@/lib/services/notify/webhooks";
import { webhookName } from "@/lib/platform/http/webhook-name";

export const GET = consoleRoute<{ name: string }>("admin", async ({ ledger, params, now }) =>
  json({ items: await listDeliveries(ledger, webhookName(params.name)), at: now.toISOString() }),
);
