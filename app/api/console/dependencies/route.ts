// GET /api/console/dependencies: every dependency's circuit breaker with its recent failures, for the console's live
// table.
import { consoleRoute } from "@/lib/console/console-route";
import { json } from "@/lib/platform/http/problem";
import { listDependencies } from "@/lib/ledger/dependencies/dependencies";

export const GET = consoleRoute("viewer", async ({ ledger, now }) =>
  json({ items: await listDependencies(ledger, now), at: now.toISOString() }),
);
