// The trace a caller's request belongs to, as W3C Trace Context (https://www.w3.org/TR/trace-context/) writes it: the
// `traceparent` header of an API request, or `params._meta.traceparent` of an MCP tools/call. Read whether or not
// tracing is configured: an operation records the caller's trace id either way (docs/observability.md).

/** A caller's valid traceparent (and its tracestate, passed on as it came), with the trace id it names. */
export interface CallerTrace {
  /** 32 lowercase hex digits, never all zero. */
  traceId: string;
  traceparent: string;
  tracestate?: string;
}

/** version-traceId-parentId-flags; a later version may append fields after a dash. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZEROS = /^0+$/;

/**
 * The caller's trace from its traceparent and tracestate, or undefined when there is none or it is malformed (the
 * request is then answered as if it had none, as the W3C rules say: a trace header never makes a request fail).
 */
export function callerTrace(traceparent: unknown, tracestate?: unknown): CallerTrace | undefined {
  if (typeof traceparent !== "string") return undefined;
  const value = traceparent.trim();
  const match = TRACEPARENT.exec(value);
  if (!match) return undefined;
  const [, version, traceId, parentId, , rest] = match;
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (ZEROS.test(traceId!) || ZEROS.test(parentId!)) return undefined;
  return typeof tracestate === "string" && tracestate.length > 0
    ? { traceId: traceId!, traceparent: value, tracestate }
    : { traceId: traceId!, traceparent: value };
}

/** The caller's trace an HTTP request's headers carry (tracestate is read only beside a valid traceparent). */
export function callerTraceOfHeaders(headers: { get(name: string): string | null }): CallerTrace | undefined {
  const traceparent = headers.get("traceparent");
  return traceparent === null ? undefined : callerTrace(traceparent, headers.get("tracestate"));
}
