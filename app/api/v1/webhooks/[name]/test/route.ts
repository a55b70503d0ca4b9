// POST /api/v1/webhooks/{name}/test (admin scope): queue a signed test event for the webhook; 202 with its delivery.
import { json, otherMethods } from "@/lib/api/problem";
import { apiRoute } from "@/lib/api/route";
import { sendTestEvent } from "@/lib/notify/webhooks";
import { webhookName } from "../../webhook-problem";

type Params = { name: string };

export const POST = apiRoute<Params>(["admin"], async ({ ledger, params, actor, now }) =>
  json(await sendTestEvent(ledger, webhookName(params.name), actor, now), 202),
);

const refused = otherMethods("POST");
export const GET = refused.GET;
export const PUT = refused.PUT;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
