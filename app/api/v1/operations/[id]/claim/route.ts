// POST /api/v1/operations/{id}/claim: take the run lease; the fence increases with every claim.
import { json, otherMethods } from "@/lib/api/problem";
import { readJson } from "@/lib/api/request-body";
import { apiRoute } from "@/lib/api/route";
import { claimBody } from "@/lib/api/schemas";
import { claimLease } from "@/lib/ledger/commands/lease";

export const POST = apiRoute<{ id: string }>(["agent"], async ({ req, ledger, params, actor, now }) =>
  json(await claimLease(ledger, params.id, await readJson(req, claimBody), actor, now)),
);

const refused = otherMethods("POST");
export const GET = refused.GET;
export const PUT = refused.PUT;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
