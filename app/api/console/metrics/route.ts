// GET /api/console/metrics?window=1h|24h: the chart series for the window and the all-time counters, for the console's
// metrics page.
import { z } from "zod";
import { consoleRoute } from "@/lib/api/console-route";
import { json } from "@/lib/api/problem";
import { readQuery } from "@/lib/api/query";
import { metricsSnapshot } from "@/lib/ledger/reads/metrics";
import { METRIC_WINDOWS, metricSeries } from "@/lib/ledger/reads/metrics-series";

const querySchema = z.object({ window: z.enum(METRIC_WINDOWS).default("1h") }).strict();

export const GET = consoleRoute("viewer", async ({ req, ledger, now }) => {
  const { window } = readQuery(req, querySchema);
  const [series, snapshot] = await Promise.all([metricSeries(ledger, window, now), metricsSnapshot(ledger)]);
  return json({ series, snapshot, at: now.toISOString() });
});
