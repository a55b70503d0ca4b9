// The trace id an operation or an attempt records (Operation.traceId, Attempt.traceId): the caller's, or when the
// caller sent none and tracing runs, the trace of opledger's own span.
import { trace } from "@opentelemetry/api";
import type { CallerTrace } from "./caller-trace";

/** Without the SDK no span is ever active (the API's no-op context), so this is the caller's trace id or null. */
export function callTraceId(caller: CallerTrace | undefined): string | null {
  if (caller) return caller.traceId;
  const active = trace.getActiveSpan()?.spanContext();
  return active && trace.isSpanContextValid(active) ? active.traceId : null;
}
