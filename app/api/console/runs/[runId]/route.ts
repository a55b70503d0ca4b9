// GET /api/console/runs/{runId}: one run's operations on a time axis, with each attempt and the backoff before it, for
// the console's run page (people only; a viewer may read it), each operation with its trace id for the Trace links.
import { consoleRoute } from "@/lib/console/console-route";
import { json } from "@/lib/platform/http/problem";
import { runTimeline } from "@/lib/ledger/reads/run-timeline";

export const GET = consoleRoute<{ runId: string }>("viewer", async ({ ledger, params, now }) =>
  json(await runTimeline(ledger, params.runId, now)),
);
