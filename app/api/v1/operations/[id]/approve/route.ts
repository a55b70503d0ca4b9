// POST /api/v1/operations/{id}/approve: the human gate. The person a key is bound to grants exactly one attempt (or
// gives one of the quorum's approvals); an agent key gets 403 person_required from the ledger, which decides.
import { json, otherMethods } from "@/lib/api/problem";
import { readJson } from "@/lib/api/request-body";
import { apiRoute } from "@/lib/api/route";
import { decisionBody } from "@/lib/api/schemas";
import { approveOperation } from "@/lib/ledger/commands/approval";

export const POST = apiRoute<{ id: string }>(["agent", "operator"], async ({ req, ledger, params, actor, now }) => {
  const body = await readJson(req, decisionBody);
  return json(await approveOperation(ledger, params.id, { reason: body.reason }, actor, now));
});

const refused = otherMethods("POST");
export const GET = refused.GET;
export const PUT = refused.PUT;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
