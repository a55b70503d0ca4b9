// GET, PUT and DELETE /api/v1/webhooks/{name} (admin scope): read a webhook; create it, or change it at the version
// the editor saw (409 otherwise); delete it (?expectedVersion= to delete only the version seen).
import { json, otherMethods } from "@/lib/api/problem";
import { readJson } from "@/lib/api/request-body";
import { apiRoute } from "@/lib/api/route";
import { LedgerError } from "@/lib/ledger/errors";
import { deleteWebhook, getWebhook, putWebhook } from "@/lib/notify/webhooks";
import { webhookBodySchema } from "@/lib/notify/webhook-schema";
import { webhookName } from "../webhook-problem";

type Params = { name: string };

export const GET = apiRoute<Params>(["admin"], async ({ ledger, params }) =>
  json(await getWebhook(ledger, webhookName(params.name))),
);

export const PUT = apiRoute<Params>(["admin"], async ({ req, ledger, params, actor, now }) => {
  const name = webhookName(params.name);
  const body = await readJson(req, webhookBodySchema);
  const result = await putWebhook(ledger, name, body, actor, now);
  return json(result.webhook, result.created ? 201 : 200);
});

function expectedVersionOf(req: Request): number | undefined {
  const raw = new URL(req.url).searchParams.get("expectedVersion");
  if (raw === null) return undefined;
  if (!/^\d{1,9}$/.test(raw)) throw new LedgerError("invalid_body", "expectedVersion must be a whole number.");
  return Number(raw);
}

export const DELETE = apiRoute<Params>(["admin"], async ({ req, ledger, params, actor, now }) => {
  const name = webhookName(params.name);
  await deleteWebhook(ledger, name, { expectedVersion: expectedVersionOf(req) }, actor, now);
  return new Response(null, { status: 204, headers: { "cache-control": "no-store" } });
});

const refused = otherMethods("GET", "PUT", "DELETE");
export const POST = refused.POST;
export const PATCH = refused.PATCH;
