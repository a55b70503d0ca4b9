// GET /api/v1/operations/{id}: the operation, its attempts, its audit trail and the gate's current decision. An agent
// key reads only its own operations (another's is 404).
import { json, otherMethods } from "@/lib/api/problem";
import { apiRoute } from "@/lib/api/route";
import { ownerFilter } from "@/lib/ledger/commands/authority";
import { getOperation } from "@/lib/ledger/reads/operations";

export const GET = apiRoute<{ id: string }>(["agent", "operator"], async ({ ledger, params, actor, now }) =>
  json(await getOperation(ledger, params.id, now, ownerFilter(actor))),
);

const refused = otherMethods("GET");
export const POST = refused.POST;
export const PUT = refused.PUT;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
