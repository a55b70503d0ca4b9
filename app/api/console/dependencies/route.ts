// GET /api/console/dependencies: every dependency's circuit breaker with its recent failures, for the console's live table.
import { consoleRoute } from "@/lib/api/console-route";
import { json } from "@/lib/api/problem";
import { listDependencies } from "@/lib/ledger/dependencies";

export const GET = consoleRoute("viewer", async ({ client, now }) =>
  json({ items: await listDependencies(client, now), at: now.toISOString() }),
);
