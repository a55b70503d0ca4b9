// GET /api/console/webhooks/{name}/deliveries: one webhook's delivery log, newest first, polled by the Webhooks page.
import { consoleRoute } from "@/lib/api/console-route";
import { json } from "@/lib/api/problem";
import { listDeliveries } from "@/lib/notify/webhooks";
import { webhookName } from "@/lib/api/webhook-name";

export const GET = consoleRoute<{ name: string }>("admin", async ({ ledger, params, now }) =>
  json({ items: await listDeliveries(ledger, webhookName(params.name)), at: now.toISOString() }),
);
