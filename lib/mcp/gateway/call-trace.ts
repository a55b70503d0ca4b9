// A tools/call's trace: the caller's `params._meta.traceparent` (and tracestate), as the MCP conventions carry W3C
// Trace Context, wins over the HTTP request's traceparent (docs/observability.md).
import type { CallToolRequest } from "@modelcontextprotocol/sdk/types.js";
import { withTrace } from "@/lib/ledger/actor";
import { callerTrace } from "@/lib/telemetry/caller-trace";
import type { GatewayServerContext } from "./call-tool";

/** The request's context with the call's actor carrying the trace its _meta names; the same context without one. */
export function inCallersTrace(
  ctx: GatewayServerContext,
  meta: CallToolRequest["params"]["_meta"],
): GatewayServerContext {
  const trace = callerTrace(meta?.traceparent, meta?.tracestate);
  return trace ? { ...ctx, actor: withTrace(ctx.actor, trace) } : ctx;
}
