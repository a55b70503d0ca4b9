// GET /api/console/queue: one page of the Unknowns or Approvals queue (cookie session, viewer), longest waiting first.
import { z } from "zod";
import { consoleRoute } from "@/lib/console/console-route";
import { json } from "@/lib/platform/http/problem";
import { readQuery } from "@/lib/platform/http/query";
import { listQueue, QUEUE_CURSOR, QUEUE_PHASES } from "@/lib/ledger/reads/operations";
import { MAX_PAGE_SIZE } from "@/lib/console/ledger-search";
import { operationRow, type OperationPage } from "@/lib/console/operation-row";

const queueQuery = z
  .object({
    phase: z.enum(QUEUE_PHASES),
    cursor: z.string().regex(QUEUE_CURSOR, "a cursor from nextCursor").optional(),
    limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(MAX_PAGE_SIZE),
  })
  .strict();

export const GET = consoleRoute("viewer", async ({ req, ledger, now }) => {
  const { phase, cursor, limit } = readQuery(req, queueQuery);
  const page = await listQueue(ledger, phase, { cursor, limit }, now);
  const body: OperationPage = { items: page.items.map(operationRow), nextCursor: page.nextCursor };
  return json(body);
});
