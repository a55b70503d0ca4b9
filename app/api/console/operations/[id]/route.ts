// GET /api/console/operations/{id}: one operation with its attempts, audit trail and the gate's decision, for the
// polling operation page.
import { consoleRoute } from "@/lib/console/console-route";
import { json } from "@/lib/platform/http/problem";
import { getOperation } from "@/lib/ledger/reads/operations";

export const GET = consoleRoute<{ id: string }>("viewer", async ({ ledger, params, now }) =>
  json(await getOperation(ledger, params.id, now)),
);
