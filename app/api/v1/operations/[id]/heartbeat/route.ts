// POST /api/v1/operations/{id}/heartbeat: extend the run lease; a stale fence is refused.
import { json, otherMethods } from "@/lib/api/problem";
import { readJson } from "@/lib/api/request-body";
import { apiRoute } from "@/lib/api/route";
import { heartbeatBody } from "@/lib/api/schemas";
import { heartbeatLease } from "@/lib/ledger/commands/lease";

export const POST = apiRoute<{ id: string }>(["agent"], async ({ req, ledger, params, actor, now }) =>
  json(await heartbeatLease(ledger, params.id, await readJson(req, heartbeatBody), actor, now)),
);

const refused = otherMethods("POST");
export const GET = refused.GET;
export const PUT = refused.PUT;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
