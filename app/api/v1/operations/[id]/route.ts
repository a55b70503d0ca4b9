// GET /api/v1/operations/{id}: the operation, its attempts, its audit trail and the gate's current decision.
import { json, otherMethods } from "@/lib/api/problem";
import { apiRoute } from "@/lib/api/route";
import { getOperation } from "@/lib/ledger/reads/operations";

export const GET = apiRoute<{ id: string }>([], async ({ ledger, params, now }) =>
  json(await getOperation(ledger, params.id, now)),
);

const refused = otherMethods("GET");
export const POST = refused.POST;
export const PUT = refused.PUT;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
