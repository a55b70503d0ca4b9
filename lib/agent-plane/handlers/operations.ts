// /api/v1/operations: POST plans an operation (before anything leaves); GET lists them newest first with a keyset
// cursor, or, with `q`, finds the operations that text names (id, idempotency key, provider id, run id, a value in the
// arguments); GET /api/v1/operations/{id} reads one with its attempts, audit trail and the gate's current decision.
// An agent key lists, finds and reads only the operations it planned (another's is 404).
import { z } from "zod";
import { jsonReply } from "@/lib/platform/http/problem";
import { validQuery } from "@/lib/platform/http/query";
import { BodyError, validBody } from "@/lib/platform/http/request-body";
import { listQuery, planBody } from "@/lib/agent-plane/schemas";
import { ownerFilter } from "@/lib/ledger/commands/authority";
import { planOperation } from "@/lib/ledger/commands/plan";
import { getOperation, listOperations } from "@/lib/ledger/reads/operations";
import { MAX_SEARCH_LENGTH, searchOperations } from "@/lib/ledger/reads/search";
import { keyed } from "../endpoint";

const listOrSearchQuery = listQuery.extend({ q: z.string().max(MAX_SEARCH_LENGTH).optional() });

export const planEndpoint = keyed(
  ["agent"],
  async ({ body, ledger, actor, now }) => {
    const { operation, created } = await planOperation(ledger, validBody(await body(), planBody), actor, now);
    return jsonReply(operation, created ? 201 : 200, created ? { location: `/api/v1/operations/${operation.id}` } : {});
  },
  "plan",
);

export const listEndpoint = keyed(["agent", "operator"], async ({ query, ledger, actor, now }) => {
  const { cursor, limit, q, ...filter } = validQuery(query, listOrSearchQuery);
  const owner = ownerFilter(actor);
  if (q !== undefined) {
    if (Object.keys(filter).length > 0) {
      throw new BodyError(400, "invalid_body", "q finds operations by itself; it cannot be combined with filters.", {
        q: [`not with ${Object.keys(filter).join(", ")}`],
      });
    }
    return jsonReply(
      await searchOperations(ledger, { q, cursor, limit, ...(owner ? { plannedByKeyId: owner } : {}) }, now),
    );
  }
  return jsonReply(
    await listOperations(ledger, { ...filter, ...(owner ? { plannedByKeyId: owner } : {}) }, { cursor, limit }, now),
  );
});

export const readEndpoint = keyed(["agent", "operator"], async ({ ledger, params, actor, now }) =>
  jsonReply(await getOperation(ledger, params.id!, now, ownerFilter(actor))),
);
