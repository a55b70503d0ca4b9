// POST /api/v1/operations/{id}/dispatch: the gate decides; DISPATCHED is durable before the answer lets the worker call
// the provider.
import { json, otherMethods } from "@/lib/api/problem";
import { readJson } from "@/lib/api/request-body";
import { apiRoute, errorResponse } from "@/lib/api/route";
import { dispatchBody } from "@/lib/api/schemas";
import { dispatchOperation } from "@/lib/ledger/commands/dispatch";

export const POST = apiRoute<{ id: string }>(["agent"], async ({ req, ledger, params, actor, now }) => {
  const result = await dispatchOperation(ledger, params.id, await readJson(req, dispatchBody), actor, now);
  return "refused" in result ? errorResponse(result.refused) : json(result.operation);
});

const refused = otherMethods("POST");
export const GET = refused.GET;
export const PUT = refused.PUT;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
