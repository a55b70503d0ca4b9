// Spans around opledger's work, through @opentelemetry/api only. When tracing is off (start-tracing.ts) a helper runs
// its work bare, given a span that records nothing: no span object, no context switch, no attribute is built.
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type SpanOptions,
} from "@opentelemetry/api";
import type { CallerTrace } from "./caller-trace";
import { tracingOn } from "./start-tracing";

/** The span a helper gives its work when tracing is off: every call on it does nothing. */
export const NO_SPAN: Span = trace.wrapSpanContext({ traceId: "0".repeat(32), spanId: "0".repeat(16), traceFlags: 0 });

const tracer = () => trace.getTracer("opledger");

/** Where a span starts: `root` (a new trace), or the active span, else the caller's traceparent, else a new trace. */
export interface SpanPlace {
  root?: boolean;
  caller?: CallerTrace;
}

function parentOf(place: SpanPlace): Context {
  if (place.root) return ROOT_CONTEXT;
  const active = context.active();
  if (trace.getSpan(active) || !place.caller) return active;
  const { traceparent, tracestate } = place.caller;
  return propagation.extract(active, tracestate ? { traceparent, tracestate } : { traceparent });
}

/**
 * Runs `work` inside a new span, active while it runs; the span ends when the work settles, and a work that throws
 * marks it as an error with the exception recorded (its message only: opledger's errors never carry secrets).
 */
export async function inSpan<T>(
  name: string,
  options: SpanOptions & SpanPlace,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  if (!tracingOn()) return work(NO_SPAN);
  const parent = parentOf(options);
  const span = tracer().startSpan(name, options, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => work(span));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    span.recordException({ name: error instanceof Error ? error.name : "Error", message });
    span.setStatus({ code: SpanStatusCode.ERROR, message });
    throw error;
  } finally {
    span.end();
  }
}

/** The W3C headers of the active span, for a request that leaves (an empty object when tracing is off). */
export function outgoingTraceHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  if (tracingOn()) propagation.inject(context.active(), headers);
  return headers;
}
