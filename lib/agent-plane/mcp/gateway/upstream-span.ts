// The client span of one attempt's request to the upstream (docs/observability.md): `tools/call {tool}` of kind CLIENT,
// its W3C context passed on in the request's params._meta.traceparent, as the MCP conventions carry it. Argument and
// result values only when the tool's contract says traceArguments: true.
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { UpstreamCall } from "@/lib/services/upstreams/types";
import { GEN_AI, LEDGER, MCP } from "@/lib/platform/telemetry/attributes";
import { inSpan, outgoingTraceHeaders } from "@/lib/platform/telemetry/spans";
import { tracingOn } from "@/lib/platform/telemetry/start-tracing";

export interface UpstreamAttempt {
  /** The upstream's own name of the tool. */
  tool: string;
  operationId: string;
  attempt: number;
  args: Record<string, unknown>;
  traceArguments: boolean;
}

/**
 * Sends one attempt inside its client span; `send` is given the _meta entries that carry the span's context (none
 * when tracing is off: the caller's own traceparent then goes on as it came).
 */
export function upstreamSpan(
  attempt: UpstreamAttempt,
  send: (traceMeta: Record<string, string>) => Promise<UpstreamCall>,
): Promise<UpstreamCall> {
  if (!tracingOn()) return send({});
  const attributes = {
    [MCP.methodName]: "tools/call",
    [GEN_AI.toolName]: attempt.tool,
    [LEDGER.operationId]: attempt.operationId,
    [LEDGER.attempt]: attempt.attempt,
    ...(attempt.traceArguments ? { [GEN_AI.toolCallArguments]: JSON.stringify(attempt.args) } : {}),
  };
  return inSpan(`tools/call ${attempt.tool}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const sent = await send(outgoingTraceHeaders());
    span.setAttribute("opledger.upstream.outcome", sent.outcome);
    if (sent.outcome !== "answered" || sent.result.isError) {
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: sent.outcome === "answered" ? "tool error" : sent.outcome,
      });
    }
    if (attempt.traceArguments && sent.outcome === "answered") {
      span.setAttribute(GEN_AI.toolCallResult, JSON.stringify(sent.result.content ?? sent.result));
    }
    return sent;
  });
}
