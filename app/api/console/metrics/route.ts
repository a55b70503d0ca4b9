// GET /api/console/metrics?window=1h|24h: the console's Metrics page for the window (chart series, time in backoff
// versus calls, outcome mix and drift, retry spikes) and the all-time counters.
import { z } from "zod";
import { consoleRoute } from "@/lib/console/console-route";
import { json } from "@/lib/platform/http/problem";
import { readQuery } from "@/lib/platform/http/query";
import { consoleMetrics } from "@/lib/ledger/reads/metrics";
import { METRIC_WINDOWS } from "@/lib/ledger/reads/metrics-series";

const querySchema = z.object({ window: z.enum(METRIC_WINDOWS).default("1h") }).strict();

export const GET = consoleRoute("viewer", async ({ req, ledger, now }) => {
  const { window } = readQuery(req, querySchema);
  return json(await consoleMetrics(ledger, window, now));
});
