// POST /api/v1/operations/{id}/reject (operator scope): a named person ends the operation; the reason reaches the
// agent.
import { json, otherMethods } from "@/lib/api/problem";
import { readJson } from "@/lib/api/request-body";
import { apiActor, apiRoute } from "@/lib/api/route";
import { decisionBody } from "@/lib/api/schemas";
import { rejectOperation } from "@/lib/ledger/commands/approval";

export const POST = apiRoute<{ id: string }>(["operator"], async ({ req, ledger, params, key, now }) => {
  const body = await readJson(req, decisionBody);
  return json(await rejectOperation(ledger, params.id, { reason: body.reason }, apiActor(key, body.actor), now));
});

const refused = otherMethods("POST");
export const GET = refused.GET;
export const PUT = refused.PUT;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
