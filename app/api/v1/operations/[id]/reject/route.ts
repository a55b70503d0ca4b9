// POST /api/v1/operations/{id}/reject: a person (through a key bound to them) ends the operation, or an agent key gives
// up its own; the reason reaches the agent.
import { json, otherMethods } from "@/lib/api/problem";
import { readJson } from "@/lib/api/request-body";
import { apiRoute } from "@/lib/api/route";
import { decisionBody } from "@/lib/api/schemas";
import { rejectOperation } from "@/lib/ledger/commands/approval";

export const POST = apiRoute<{ id: string }>(["agent", "operator"], async ({ req, ledger, params, actor, now }) => {
  const body = await readJson(req, decisionBody);
  return json(await rejectOperation(ledger, params.id, { reason: body.reason }, actor, now));
});

const refused = otherMethods("POST");
export const GET = refused.GET;
export const PUT = refused.PUT;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
