// GET /api/v1/webhooks: every webhook (admin scope; the secret is a variable's name, never its value).
import { json, otherMethods } from "@/lib/api/problem";
import { apiRoute } from "@/lib/api/route";
import { listWebhooks } from "@/lib/notify/webhooks";

export const GET = apiRoute(["admin"], async ({ ledger }) =>
  json({ items: await listWebhooks(ledger), nextCursor: null }),
);

const refused = otherMethods("GET");
export const POST = refused.POST;
export const PUT = refused.PUT;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
