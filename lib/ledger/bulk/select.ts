// The exact set a bulk action is about: every operation matching the filter (or each listed id), oldest first, not a
// page of it. More than the limit is refused: the person narrows the filter instead of acting on a part they never saw.
import type { Operation } from "@/lib/platform/generated/prisma/client";
import type { Ledger } from "@/lib/ledger/ledger";
import { operationWhere } from "@/lib/ledger/reads/operations";
import { LedgerError } from "../errors";
import { MAX_BULK_OPERATIONS, type BulkPreviewRequest } from "./request";

export interface Selection {
  operations: Operation[];
  /** Listed ids with no operation. */
  missing: string[];
}

/** Ids are read in chunks so no engine meets its bound-parameter limit. */
const ID_CHUNK = 500;

async function byIds(ledger: Ledger, ids: string[]): Promise<Selection> {
  const unique = [...new Set(ids)];
  const found: Operation[] = [];
  for (let i = 0; i < unique.length; i += ID_CHUNK) {
    found.push(...(await ledger.db.operation.findMany({ where: { id: { in: unique.slice(i, i + ID_CHUNK) } } })));
  }
  const seen = new Set(found.map((op) => op.id));
  found.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { operations: found, missing: unique.filter((id) => !seen.has(id)) };
}

/** Every operation the request names, oldest first; refused when there are more than MAX_BULK_OPERATIONS. */
export async function selectOperations(ledger: Ledger, request: BulkPreviewRequest): Promise<Selection> {
  const selection = request.ids
    ? await byIds(ledger, request.ids)
    : {
        operations: await ledger.db.operation.findMany({
          where: operationWhere(request.filter ?? {}),
          orderBy: { id: "asc" },
          take: MAX_BULK_OPERATIONS + 1,
        }),
        missing: [],
      };
  if (selection.operations.length > MAX_BULK_OPERATIONS) {
    throw new LedgerError(
      "too_many_matches",
      `More than ${MAX_BULK_OPERATIONS.toLocaleString("en")} operations match; narrow the filter (a tool, a phase, ` +
        `a run or a time window) and act on each part.`,
    );
  }
  if (selection.operations.length === 0) {
    throw new LedgerError(
      "nothing_matches",
      request.ids ? "None of the listed operations exists." : "No operation matches this filter; nothing to do.",
    );
  }
  return selection;
}
