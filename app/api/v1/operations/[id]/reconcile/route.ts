// POST /api/v1/operations/{id}/reconcile: evidence moves UNKNOWN to RECONCILED (agent or operator scope).
import { json, otherMethods } from "@/lib/api/problem";
import { readJson } from "@/lib/api/request-body";
import { apiRoute } from "@/lib/api/route";
import { reconcileBody } from "@/lib/api/schemas";
import { reconcileOperation } from "@/lib/ledger/commands/reconcile";

export const POST = apiRoute<{ id: string }>(["agent", "operator"], async ({ req, ledger, params, actor, now }) =>
  json(await reconcileOperation(ledger, params.id, await readJson(req, reconcileBody), actor, now)),
);

const refused = otherMethods("POST");
export const GET = refused.GET;
export const PUT = refused.PUT;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
