// Find anything: an operation by its id, idempotency key, provider id or run id, or by a value inside its arguments
// (the OperationSearchTerm rows a trigger writes at insert; docs/decisions/021-search-index.md). Exact match, newest
// first, keyset-paged.
import type { Ledger } from "@/lib/ledger/ledger";
import { MAX_PAGE, viewsOf, type Page } from "./operations";
import type { OperationView } from "./operation-view";

/** The longest text searched: idempotency keys may be 255 characters; argument values are indexed up to 200. */
export const MAX_SEARCH_LENGTH = 255;

/** Where the searched text was found on an operation. */
export const SEARCH_MATCHES = ["id", "idempotencyKey", "providerId", "runId", "args"] as const;
export type SearchMatch = (typeof SEARCH_MATCHES)[number];

export interface SearchHit extends OperationView {
  matched: SearchMatch[];
}

export interface SearchPage extends Page<SearchHit> {
  /** The searched text is exactly this operation's id (the console opens its page). */
  operationId: string | null;
}

export interface SearchQuery {
  /** The text, matched exactly (case-sensitive) after trimming surrounding white space. */
  q: string;
  cursor?: string;
  limit: number;
  /** Only the operations this API key planned (an agent key's search), as GET /api/v1/operations. */
  plannedByKeyId?: string;
}

/** The ids of operations with `term` among their argument values, newest first, through the (term, operationId) key. */
async function idsByArgument(ledger: Ledger, query: SearchQuery, take: number): Promise<string[]> {
  const params: unknown[] = [query.q];
  const p = (value: unknown): string => {
    params.push(value);
    return ledger.engine === "postgresql" ? `$${params.length}` : "?";
  };
  const first = ledger.engine === "postgresql" ? "$1" : "?";
  const owner = query.plannedByKeyId
    ? ` AND EXISTS (SELECT 1 FROM "Operation" o WHERE o."id" = t."operationId" AND o."plannedByKeyId" = ${p(query.plannedByKeyId)})`
    : "";
  const before = query.cursor ? ` AND t."operationId" < ${p(query.cursor)}` : "";
  const sql =
    `SELECT t."operationId" AS "id" FROM "OperationSearchTerm" t WHERE t."term" = ${first}${before}${owner}` +
    ` ORDER BY t."operationId" DESC LIMIT ${p(take)}`;
  const rows = await ledger.db.$queryRawUnsafe<{ id: string }[]>(sql, ...params);
  return rows.map((row) => row.id);
}

/** The ids of operations whose id, idempotency key, provider id or run id is exactly the text, newest first. */
async function idsByColumn(ledger: Ledger, query: SearchQuery, take: number): Promise<string[]> {
  const rows = await ledger.db.operation.findMany({
    select: { id: true },
    where: {
      OR: [{ id: query.q }, { idempotencyKey: query.q }, { providerId: query.q }, { runId: query.q }],
      ...(query.cursor ? { id: { lt: query.cursor } } : {}),
      ...(query.plannedByKeyId ? { plannedByKeyId: query.plannedByKeyId } : {}),
    },
    orderBy: { id: "desc" },
    take,
  });
  return rows.map((row) => row.id);
}

function matchesOf(view: OperationView, q: string): SearchMatch[] {
  const matched: SearchMatch[] = [];
  if (view.id === q) matched.push("id");
  if (view.idempotencyKey === q) matched.push("idempotencyKey");
  if (view.providerId === q) matched.push("providerId");
  if (view.runId === q) matched.push("runId");
  return matched.length > 0 ? matched : ["args"];
}

/**
 * One page of the operations the text names, newest first. Each source is read through its own index up to one row
 * past the page, so the page (and whether there is another) is exact however many operations match.
 */
export async function searchOperations(ledger: Ledger, query: SearchQuery, now: Date): Promise<SearchPage> {
  const q = query.q.trim();
  const limit = Math.min(Math.max(query.limit, 1), MAX_PAGE);
  if (q.length === 0 || q.length > MAX_SEARCH_LENGTH) return { items: [], nextCursor: null, operationId: null };
  const trimmed = { ...query, q };
  const [byArgument, byColumn] = await Promise.all([
    idsByArgument(ledger, trimmed, limit + 1),
    idsByColumn(ledger, trimmed, limit + 1),
  ]);
  const ids = [...new Set([...byArgument, ...byColumn])].sort().reverse();
  const pageIds = ids.slice(0, limit);
  const rows = pageIds.length
    ? await ledger.db.operation.findMany({ where: { id: { in: pageIds } }, orderBy: { id: "desc" } })
    : [];
  const items = (await viewsOf(ledger, rows, now)).map((view) => ({ ...view, matched: matchesOf(view, q) }));
  return {
    items,
    nextCursor: ids.length > limit ? (pageIds.at(-1) ?? null) : null,
    operationId: byColumn.includes(q) && !query.cursor ? q : null,
  };
}
