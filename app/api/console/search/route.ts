// GET /api/console/search?q=&cursor=: the top bar's search box and the Search page (any signed-in person sees every
// operation, as on the Ledger).
import { z } from "zod";
import { consoleRoute } from "@/lib/console/console-route";
import { json } from "@/lib/platform/http/problem";
import { readQuery } from "@/lib/platform/http/query";
import { MAX_PAGE } from "@/lib/ledger/reads/operations";
import { MAX_SEARCH_LENGTH, searchOperations } from "@/lib/ledger/reads/search";

const searchQuery = z
  .object({
    q: z.string().max(MAX_SEARCH_LENGTH),
    cursor: z.string().max(64).optional(),
    limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(50),
  })
  .strict();

export const GET = consoleRoute("viewer", async ({ req, ledger, now }) => {
  const { q, cursor, limit } = readQuery(req, searchQuery);
  return json(await searchOperations(ledger, { q, cursor, limit }, now));
});
