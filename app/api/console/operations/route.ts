// GET /api/console/operations: one page of the ledger for the console (cookie session, viewer), filtered, newest or
// oldest first.
import { z } from "zod";
import { consoleRoute } from "@/lib/console/console-route";
import { json } from "@/lib/platform/http/problem";
import { readQuery } from "@/lib/platform/http/query";
import { readOperationPage } from "@/lib/console/ledger-page";
import { DEFAULT_PAGE_SIZE, ledgerFilterSchema, MAX_PAGE_SIZE } from "@/lib/console/ledger-search";

const operationsQuery = ledgerFilterSchema
  .extend({
    cursor: z
      .string()
      .regex(/^[0-9A-Za-z]{1,64}$/, "an operation id from nextCursor")
      .optional(),
    limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
    order: z.enum(["newest", "oldest"]).default("newest"),
  })
  .strict();

export const GET = consoleRoute("viewer", async ({ req, ledger, now }) => {
  const { cursor, limit, order, ...filter } = readQuery(req, operationsQuery);
  // The same read as the ledger page's server-rendered first page.
  return json(await readOperationPage(ledger, { filter, cursor, limit, order }, now));
});
