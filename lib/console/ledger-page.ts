// One page of the ledger as the console shows it, read on the server: the ledger page renders its first page with it.
import type { Ledger } from "@/lib/ledger/ledger";
import { listOperations } from "@/lib/ledger/reads/operations";
import { ageToMs, type OperationsRequest } from "./ledger-search";
import { operationRow, type OperationPage } from "./operation-row";

/** "Older than" counts back from `now`, the instant of the request. */
export async function readOperationPage(ledger: Ledger, request: OperationsRequest, now: Date): Promise<OperationPage> {
  const { age, ...filter } = request.filter ?? {};
  const ageMs = age === undefined ? null : ageToMs(age);
  const page = await listOperations(
    ledger,
    { ...filter, ...(ageMs === null ? {} : { createdBefore: new Date(now.getTime() - ageMs) }) },
    { cursor: request.cursor, limit: request.limit, order: request.order },
    now,
  );
  return { items: page.items.map(operationRow), nextCursor: page.nextCursor };
}
