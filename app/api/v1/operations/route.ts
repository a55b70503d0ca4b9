// POST /api/v1/operations plans an operation (before anything leaves); GET lists them newest first with a keyset
// cursor.
import { json, otherMethods } from "@/lib/api/problem";
import { readQuery } from "@/lib/api/query";
import { readJson } from "@/lib/api/request-body";
import { apiRoute } from "@/lib/api/route";
import { listQuery, planBody } from "@/lib/api/schemas";
import { planOperation } from "@/lib/ledger/commands/plan";
import { ownerFilter } from "@/lib/ledger/commands/authority";
import { listOperations } from "@/lib/ledger/reads/operations";

export const POST = apiRoute(["agent"], async ({ req, ledger, actor, now }) => {
  const body = await readJson(req, planBody);
  const { operation, created } = await planOperation(ledger, body, actor, now);
  return json(operation, created ? 201 : 200, created ? { location: `/api/v1/operations/${operation.id}` } : {});
});

// An agent key lists only the operations it planned.
export const GET = apiRoute(["agent", "operator"], async ({ req, ledger, actor, now }) => {
  const { cursor, limit, ...filter } = readQuery(req, listQuery);
  const owner = ownerFilter(actor);
  return json(
    await listOperations(ledger, { ...filter, ...(owner ? { plannedByKeyId: owner } : {}) }, { cursor, limit }, now),
  );
});

const refused = otherMethods("GET", "POST");
export const PUT = refused.PUT;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
