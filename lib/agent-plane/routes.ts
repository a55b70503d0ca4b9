// Every route the agent plane answers, in the order the router tries them. The role matrix (e2e/security/surface.ts)
// reads this file: a v1(...) route answers all of GET, POST, PUT, PATCH and DELETE (served, or refused with a 405
// problem), a plain(...) route only the methods it names.
import { mcpEndpointContext } from "@/lib/agent-plane/mcp/gateway/endpoint-context";
import { serveMcp } from "@/lib/agent-plane/mcp/gateway/mcp-endpoint";
import type { Endpoint } from "./endpoint";
import { bulkCancelEndpoint, bulkEndpoint, bulkJobEndpoint } from "./handlers/bulk";
import { getContractEndpoint, listContractsEndpoint, putContractEndpoint } from "./handlers/contracts";
import { getBreakerEndpoint, putBreakerEndpoint } from "./handlers/dependencies";
import { metricsEndpoint, notFoundEndpoint, openApiEndpoint } from "./handlers/documents";
import { liveEndpoint, readyEndpoint } from "./handlers/health";
import { getRunEndpoint, putRunEndpoint } from "./handlers/runs";
import {
  approveEndpoint,
  claimEndpoint,
  dispatchEndpoint,
  heartbeatEndpoint,
  outcomeEndpoint,
  reconcileEndpoint,
  rejectEndpoint,
  replayEndpoint,
} from "./handlers/operation-commands";
import { listEndpoint, planEndpoint, readEndpoint } from "./handlers/operations";
import {
  deleteWebhookEndpoint,
  deliveriesEndpoint,
  getWebhookEndpoint,
  listWebhooksEndpoint,
  putWebhookEndpoint,
  testWebhookEndpoint,
} from "./handlers/webhooks";
import { plain, v1, type Route } from "./router";

/** The MCP gateway (docs/mcp.md): Streamable HTTP for any MCP client, with an agent key. */
const mcp: Endpoint = {
  kind: "stream",
  scopes: ["agent"],
  serve: (req, res, ctx) => serveMcp(req, res, mcpEndpointContext(ctx.ledger, ctx.actor, ctx.now)),
};

export const ROUTES: Route[] = [
  v1("/api/v1/operations", { GET: listEndpoint, POST: planEndpoint }),
  v1("/api/v1/operations/[id]", { GET: readEndpoint }),
  v1("/api/v1/operations/[id]/claim", { POST: claimEndpoint }),
  v1("/api/v1/operations/[id]/heartbeat", { POST: heartbeatEndpoint }),
  v1("/api/v1/operations/[id]/dispatch", { POST: dispatchEndpoint }),
  v1("/api/v1/operations/[id]/outcome", { POST: outcomeEndpoint }),
  v1("/api/v1/operations/[id]/reconcile", { POST: reconcileEndpoint }),
  v1("/api/v1/operations/[id]/approve", { POST: approveEndpoint }),
  v1("/api/v1/operations/[id]/reject", { POST: rejectEndpoint }),
  v1("/api/v1/operations/[id]/replay", { POST: replayEndpoint }),
  v1("/api/v1/runs/[runId]", { GET: getRunEndpoint, PUT: putRunEndpoint }),
  v1("/api/v1/contracts", { GET: listContractsEndpoint }),
  v1("/api/v1/contracts/[tool]", { GET: getContractEndpoint, PUT: putContractEndpoint }),
  v1("/api/v1/dependencies/[name]/breaker", { GET: getBreakerEndpoint, PUT: putBreakerEndpoint }),
  v1("/api/v1/bulk", { POST: bulkEndpoint }),
  v1("/api/v1/bulk/[jobId]", { GET: bulkJobEndpoint }),
  v1("/api/v1/bulk/[jobId]/cancel", { POST: bulkCancelEndpoint }),
  v1("/api/v1/webhooks", { GET: listWebhooksEndpoint }),
  v1("/api/v1/webhooks/[name]", { GET: getWebhookEndpoint, PUT: putWebhookEndpoint, DELETE: deleteWebhookEndpoint }),
  v1("/api/v1/webhooks/[name]/test", { POST: testWebhookEndpoint }),
  v1("/api/v1/webhooks/[name]/deliveries", { GET: deliveriesEndpoint }),
  v1("/api/v1/metrics", { GET: metricsEndpoint }),
  v1("/api/v1/openapi.json", { GET: openApiEndpoint }),
  v1("/api/v1/[[...path]]", {
    GET: notFoundEndpoint,
    POST: notFoundEndpoint,
    PUT: notFoundEndpoint,
    PATCH: notFoundEndpoint,
    DELETE: notFoundEndpoint,
  }),
  plain("/mcp", { POST: mcp, GET: mcp, DELETE: mcp }),
  plain("/api/health", { GET: readyEndpoint }),
  plain("/api/health/live", { GET: liveEndpoint }),
];
