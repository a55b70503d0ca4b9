// POST /api/v1/operations/{id}/reconcile: evidence moves UNKNOWN to RECONCILED (agent or operator scope).
import { json } from "@/lib/api/problem";
import { readJson } from "@/lib/api/request-body";
import { apiRoute } from "@/lib/api/route";
import { reconcileBody } from "@/lib/api/schemas";
import { reconcileOperation } from "@/lib/ledger/reconcile";

export const POST = apiRoute<{ id: string }>(["agent", "operator"], async ({ req, client, params, actor, now }) =>
  json(await reconcileOperation(client, params.id, await readJson(req, reconcileBody), actor, now)),
);
