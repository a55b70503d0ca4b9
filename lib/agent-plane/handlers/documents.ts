// What the API answers outside the ledger: its Prometheus metrics (a key with the metrics scope, as scrapers send it,
// or one bound to a person; agent keys read their own operations only, not the whole ledger's figures), its OpenAPI
// 3.1 contract (public: it holds no data), and a 404 problem document for any other /api/v1 path, never an HTML page.
import { openApiDocument } from "@/lib/agent-plane/openapi";
import { jsonReply, problemReply, type Reply } from "@/lib/platform/http/problem";
import { metricsSnapshot, prometheusText, wallClockTotals } from "@/lib/ledger/reads/metrics";
import { keyed, publicEndpoint } from "../endpoint";

export const metricsEndpoint = keyed(["metrics", "operator"], async ({ ledger }) => {
  const [snapshot, time] = await Promise.all([metricsSnapshot(ledger), wallClockTotals(ledger)]);
  return {
    status: 200,
    headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" },
    body: prometheusText(snapshot, time),
  };
});

/** The same document every time: built once, so its compressed forms are made once too (../compression.ts). */
let openApi: Reply | undefined;
export const openApiEndpoint = publicEndpoint(() => (openApi ??= jsonReply(openApiDocument())));

export const notFoundEndpoint = publicEndpoint(({ path }) =>
  problemReply({
    status: 404,
    code: "not_found",
    title: "Not found",
    detail: `There is no API endpoint ${path}; see /api/v1/openapi.json.`,
  }),
);
