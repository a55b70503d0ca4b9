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
  /** The trace an operation was planned in, on a root span that works on it (the sweep, a bulk job, a webhook). */
  operationTraceId: "opledger.operation.trace_id",
  /** A root span's work: how many operations it moved. */
  operations: "opledger.operations",
} as const;

/** The gate's decision as an event on a span (the executor's attempt, a command). */
export const DECISION_EVENT = "opledger.decision";
