// GET /api/v1/webhooks/{name}/deliveries (admin scope): the delivery log, newest first (?limit= up to 200).
import { json, otherMethods } from "@/lib/api/problem";
import { apiRoute } from "@/lib/api/route";
import { LedgerError } from "@/lib/ledger/errors";
import { DELIVERY_PAGE, listDeliveries } from "@/lib/notify/webhooks";
import { webhookName } from "../../webhook-problem";

type Params = { name: string };

function limitOf(req: Request): number {
  const raw = new URL(req.url).searchParams.get("limit");
  if (raw === null) return DELIVERY_PAGE;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 200) throw new LedgerError("invalid_body", "limit must be 1 to 200.");
  return n;
}

export const GET = apiRoute<Params>(["admin"], async ({ req, ledger, params }) =>
  json({ items: await listDeliveries(ledger, webhookName(params.name), limitOf(req)), nextCursor: null }),
);

const refused = otherMethods("GET");
export const POST = refused.POST;
export const PUT = refused.PUT;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
