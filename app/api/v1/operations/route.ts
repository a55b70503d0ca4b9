// POST /api/v1/operations plans an operation (before anything leaves); GET lists them newest first with a keyset
// cursor, or, with `q`, finds the operations that text names (id, idempotency key, provider id, run id, a value in the
// arguments).
import { json, otherMethods } from "@/lib/api/problem";
import { readQuery } from "@/lib/api/query";
import { BodyError, readJson } from "@/lib/api/request-body";
import { apiRoute } from "@/lib/api/route";
import { listQuery, planBody } from "@/lib/api/schemas";
import { planOperation } from "@/lib/ledger/commands/plan";
import { ownerFilter } from "@/lib/ledger/commands/authority";
import { listOperations } from "@/lib/ledger/reads/operations";
import { MAX_SEARCH_LENGTH, searchOperations } from "@/lib/ledger/reads/search";
import { z } from "zod";

const listOrSearchQuery = listQuery.extend({ q: z.string().max(MAX_SEARCH_LENGTH).optional() });

export const POST = apiRoute(["agent"], async ({ req, ledger, actor, now }) => {
  const body = await readJson(req, planBody);
  const { operation, created } = await planOperation(ledger, body, actor, now);
  return json(operation, created ? 201 : 200, created ? { location: `/api/v1/operations/${operation.id}` } : {});
});

// An agent key lists, and finds, only the operations it planned.
export const GET = apiRoute(["agent", "operator"], async ({ req, ledger, actor, now }) => {
  const { cursor, limit, q, ...filter } = readQuery(req, listOrSearchQuery);
  const owner = ownerFilter(actor);
  if (q !== undefined) {
    if (Object.keys(filter).length > 0) {
      throw new BodyError(400, "invalid_body", "q finds operations by itself; it cannot be combined with filters.", {
        q: [`not with ${Object.keys(filter).join(", ")}`],
      });
    }
    return json(await searchOperations(ledger, { q, cursor, limit, ...(owner ? { plannedByKeyId: owner } : {}) }, now));
  }
  return json(
    await listOperations(ledger, { ...filter, ...(owner ? { plannedByKeyId: owner } : {}) }, { cursor, limit }, now),
  );
});

const refused = otherMethods("GET", "POST");
export const PUT = refused.PUT;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
