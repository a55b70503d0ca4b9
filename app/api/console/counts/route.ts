// GET /api/console/counts: how many operations wait in the Unknowns and Approvals queues, for the navigation badges.
import { consoleRoute } from "@/lib/console/console-route";
import { json } from "@/lib/platform/http/problem";
import { countQueues } from "@/lib/ledger/reads/operations";
import { queueCounts, type QueueCounts } from "@/lib/console/queue-counts";

export const GET = consoleRoute("viewer", async ({ ledger }) => {
  const body: QueueCounts = queueCounts(await countQueues(ledger));
  return json(body);
});
