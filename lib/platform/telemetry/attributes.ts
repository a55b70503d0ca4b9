// The attribute names opledger's spans carry (docs/observability.md, "What each span carries"): the MCP and GenAI
// semantic conventions' where they name the thing, opledger.* for the ledger's own words. Values of a call's
// arguments or result appear only when its contract says traceArguments: true; secrets never.

/** MCP semantic conventions: the gateway's tools/call server span. */
export const MCP = {
  methodName: "mcp.method.name",
  sessionId: "mcp.session.id",
} as const;

/** GenAI semantic conventions: the execute_tool span. */
export const GEN_AI = {
  operationName: "gen_ai.operation.name",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  /** Opt-in values (the contract's traceArguments). */
  toolCallArguments: "gen_ai.tool.call.arguments",
  toolCallResult: "gen_ai.tool.call.result",
} as const;

/** The ledger's words. */
export const LEDGER = {
  command: "opledger.command",
  operationId: "opledger.operation.id",
  tool: "opledger.tool",
  effect: "opledger.effect",
  attempt: "opledger.attempt",
  phaseBefore: "opledger.phase.before",
  phaseAfter: "opledger.phase.after",
  decision: "opledger.decision",
  decisionReason: "opledger.decision.reason",
  /** A refused command's code (retry_not_due, breaker_open, stale_fence, ...). */
  refusal: "opledger.refusal",
  /** The trace an operation was planned in, on the root span of a webhook delivery for that operation's event. */
  operationTraceId: "opledger.operation.trace_id",
  /** A root span's work: how many operations it moved, and the ids of the first 100 (lib/platform/telemetry/root-span.ts). */
  operations: "opledger.operations",
  operationIds: "opledger.operation.ids",
  /** The sweep pass: leases found expired (operations moved to UNKNOWN), approval requests expired. */
  sweepLostInFlight: "opledger.sweep.lost_in_flight",
  sweepApprovalsExpired: "opledger.sweep.approvals_expired",
  /** An auto-reconcile run: lookups made, and what they settled or left. */
  lookups: "opledger.auto_reconcile.looked",
  lookupsApplied: "opledger.auto_reconcile.applied",
  lookupsNotApplied: "opledger.auto_reconcile.not_applied",
  lookupsUndecided: "opledger.auto_reconcile.undecided",
  lookupsFailed: "opledger.auto_reconcile.failed",
  /** A bulk job's batch: the job, its action, and the items' results. */
  bulkJobId: "opledger.bulk.job_id",
  bulkAction: "opledger.bulk.action",
  bulkItems: "opledger.bulk.items",
  bulkActed: "opledger.bulk.acted",
  bulkStale: "opledger.bulk.stale",
  bulkFailed: "opledger.bulk.failed",
  bulkEnded: "opledger.bulk.ended",
  /** A webhook delivery: the webhook's name, the delivery (its webhook-id), the event type, the attempt, the result. */
  webhook: "opledger.webhook",
  webhookDeliveryId: "opledger.webhook.delivery_id",
  webhookEvent: "opledger.webhook.event",
  webhookAttempt: "opledger.webhook.attempt",
  webhookOutcome: "opledger.webhook.outcome",
} as const;

/** HTTP semantic conventions: an outbound request's client span, and the status a receiver answered with. */
export const HTTP = {
  requestMethod: "http.request.method",
  serverAddress: "server.address",
  serverPort: "server.port",
  urlScheme: "url.scheme",
  responseStatusCode: "http.response.status_code",
  errorType: "error.type",
} as const;

/** The gate's decision as an event on a span (the executor's attempt, a command). */
export const DECISION_EVENT = "opledger.decision";
