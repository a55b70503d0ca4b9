// The client span of one outbound request that leaves (a provider lookup, a webhook delivery): named by its method, of
// kind CLIENT, as the HTTP semantic conventions name it, with the method, the host, the port and the answer's status;
// its W3C context goes out in the request's traceparent. The URL's path and query are not recorded: a lookup's carry
// the operation's idempotency key, and a webhook's may carry the receiver's token.
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { HTTP } from "@/lib/platform/telemetry/attributes";
import { inSpan, outgoingTraceHeaders } from "@/lib/platform/telemetry/spans";
import { tracingOn } from "@/lib/platform/telemetry/start-tracing";
import { bareHost } from "./address-policy";
import type { OutboundResult } from "./refusal";

/** Sends through `send`, given the headers that carry the span's context (none when tracing is off). */
export function outboundSpan(
  method: "GET" | "POST",
  url: URL,
  send: (traceHeaders: Record<string, string>) => Promise<OutboundResult>,
): Promise<OutboundResult> {
  if (!tracingOn()) return send({});
  const attributes = {
    [HTTP.requestMethod]: method,
    // The host as the conventions write it: an IPv6 address without its URL brackets.
    [HTTP.serverAddress]: bareHost(url.hostname),
    [HTTP.serverPort]: Number(url.port) || (url.protocol === "https:" ? 443 : 80),
    [HTTP.urlScheme]: url.protocol.slice(0, -1),
  };
  return inSpan(method, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const result = await send(outgoingTraceHeaders());
    if (result.outcome === "answered") span.setAttribute(HTTP.responseStatusCode, result.status);
    // A client span is an error from status 400 on, and when no answer came (the conventions' error.type).
    const error =
      result.outcome === "answered" ? (result.status >= 400 ? String(result.status) : null) : errorType(result);
    if (error) {
      span.setAttribute(HTTP.errorType, error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: error });
    }
    return result;
  });
}

function errorType(result: Exclude<OutboundResult, { outcome: "answered" }>): string {
  return result.outcome === "failed" ? result.kind : `refused_${result.rule}`;
}
