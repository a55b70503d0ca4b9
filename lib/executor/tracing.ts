// The executor's spans, through @opentelemetry/api only (docs/observability.md): they record when the agent's process
// runs an OpenTelemetry SDK, and are the API's no-ops when it does not. One span per tool call (`execute_tool {tool}`),
// one per attempt, the backoff as its own span, the gate's decision as an event; every request to the ledger carries
// the active span's traceparent, so the operation records the agent's trace id.
import { context, propagation, SpanStatusCode, trace, type Attributes, type Span } from "@opentelemetry/api";
import type { Decision } from "./client";

const tracer = () => trace.getTracer("opledger-executor");

/** Runs `work` inside a new active span, ended when it settles; a throw marks the span as an error. */
export function inExecutorSpan<T>(name: string, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      span.setStatus({ code: SpanStatusCode.ERROR, message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** The gate's decision, as an event on the span of the attempt it followed. */
export function decisionEvent(span: Span, decision: Decision): void {
  span.addEvent("opledger.decision", {
    "opledger.decision": decision.action,
    "opledger.decision.reason": decision.reason,
  });
}

/** Adds the active span's traceparent (and tracestate) to a request's headers; nothing without a registered SDK. */
export function withTraceHeaders(headers: Record<string, string>): Record<string, string> {
  propagation.inject(context.active(), headers);
  return headers;
}
