// /api/v1/webhooks (admin scope): every webhook (the secret is a variable's name, never its value); /{name}: read one,
// create it or change it at the version the editor saw (409 otherwise), delete it (?expectedVersion= to delete only
// the version seen); /{name}/test: queue a signed test event (202 with its delivery); /{name}/deliveries: the
// delivery log, newest first (?limit= up to 200).
import { jsonReply } from "@/lib/platform/http/problem";
import { validBody } from "@/lib/platform/http/request-body";
import { webhookName } from "@/lib/platform/http/webhook-name";
import { LedgerError } from "@/lib/ledger/errors";
import { webhookBodySchema } from "@/lib/services/notify/webhook-schema";
import {
  deleteWebhook,
  DELIVERY_PAGE,
  getWebhook,
  listDeliveries,
  listWebhooks,
  putWebhook,
  sendTestEvent,
} from "@/lib/services/notify/webhooks";
import { keyed } from "../endpoint";

function limitOf(query: URLSearchParams): number {
  const raw = query.get("limit");
  if (raw === null) return DELIVERY_PAGE;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 200) throw new LedgerError("invalid_body", "limit must be 1 to 200.");
  return n;
}

function expectedVersionOf(query: URLSearchParams): number | undefined {
  const raw = query.get("expectedVersion");
  if (raw === null) return undefined;
  if (!/^\d{1,9}$/.test(raw)) throw new LedgerError("invalid_body", "expectedVersion must be a whole number.");
  return Number(raw);
}

export const listWebhooksEndpoint = keyed(["admin"], async ({ ledger }) =>
  jsonReply({ items: await listWebhooks(ledger), nextCursor: null }),
);

export const getWebhookEndpoint = keyed(["admin"], async ({ ledger, params }) =>
  jsonReply(await getWebhook(ledger, webhookName(params.name!))),
);

export const putWebhookEndpoint = keyed(["admin"], async ({ body, ledger, params, actor, now }) => {
  const name = webhookName(params.name!);
  const result = await putWebhook(ledger, name, validBody(await body(), webhookBodySchema), actor, now);
  return jsonReply(result.webhook, result.created ? 201 : 200);
});

export const deleteWebhookEndpoint = keyed(["admin"], async ({ query, ledger, params, actor, now }) => {
  const name = webhookName(params.name!);
  await deleteWebhook(ledger, name, { expectedVersion: expectedVersionOf(query) }, actor, now);
  return { status: 204, headers: { "cache-control": "no-store" }, body: null };
});

export const testWebhookEndpoint = keyed(["admin"], async ({ ledger, params, actor, now }) =>
  jsonReply(await sendTestEvent(ledger, webhookName(params.name!), actor, now), 202),
);

export const deliveriesEndpoint = keyed(["admin"], async ({ query, ledger, params }) =>
  jsonReply({ items: await listDeliveries(ledger, webhookName(params.name!), limitOf(query)), nextCursor: null }),
);
