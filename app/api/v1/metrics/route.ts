// GET /api/v1/metrics: Prometheus text format, for a key with the metrics scope (scrapers send it as a bearer token)
// or one bound to a person; agent keys read their own operations only, not the whole ledger's figures.
import { apiRoute } from "@/lib/api/route";
import { otherMethods } from "@/lib/api/problem";
import { metricsSnapshot, prometheusText, wallClockTotals } from "@/lib/ledger/reads/metrics";

export const GET = apiRoute(["metrics", "operator"], async ({ ledger }) => {
  const [snapshot, time] = await Promise.all([metricsSnapshot(ledger), wallClockTotals(ledger)]);
  return new Response(prometheusText(snapshot, time), {
    headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" },
  });
});

const refused = otherMethods("GET");
export const POST = refused.POST;
export const PUT = refused.PUT;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
