// A tools/call's trace (docs/observability.md): the caller's `params._meta.traceparent` (and tracestate), as the MCP
// conventions carry W3C Trace Context, wins over the HTTP request's traceparent; with tracing on, the call runs inside
// a server span `tools/call {tool}` and, within it, the GenAI conventions' `execute_tool {tool}`, whose
// gen_ai.tool.call.id is the operation id.
import { SpanKind, SpanStatusCode, type Span } from "@opentelemetry/api";
import type { CallToolRequest, CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { withTrace } from "@/lib/ledger/actor";
import { GEN_AI, MCP } from "@/lib/platform/telemetry/attributes";
import { callerTrace } from "@/lib/platform/telemetry/caller-trace";
import { inSpan } from "@/lib/platform/telemetry/spans";
import { tracingOn } from "@/lib/platform/telemetry/start-tracing";
import type { GatewayServerContext } from "./call-tool";

/** The request's context with the call's actor carrying the trace its _meta names; the same context without one. */
export function inCallersTrace(
  ctx: GatewayServerContext,
  meta: CallToolRequest["params"]["_meta"],
): GatewayServerContext {
  const trace = callerTrace(meta?.traceparent, meta?.tracestate);
  return trace ? { ...ctx, actor: withTrace(ctx.actor, trace) } : ctx;
}

/** The run a call belongs to is its MCP session unless it is the key's day run (mcp-endpoint.ts's runOf). */
const sessionOf = (run: string): Record<string, string> => (run.startsWith("mcp:") ? {} : { [MCP.sessionId]: run });

function answered(span: Span, result: CallToolResult): void {
  const operationId = result._meta?.["opledger/operation"];
  if (typeof operationId === "string") span.setAttribute(GEN_AI.toolCallId, operationId);
  const code = result._meta?.["opledger/code"];
  if (typeof code === "string") span.setAttribute("error.type", code);
  if (result.isError)
    span.setStatus({ code: SpanStatusCode.ERROR, message: typeof code === "string" ? code : "tool error" });
}

/** Answers one tools/call in the caller's trace, inside its spans when tracing is on. */
export function tracedToolCall(
  request: GatewayServerContext,
  params: CallToolRequest["params"],
  answer: (ctx: GatewayServerContext) => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const ctx = inCallersTrace(request, params._meta);
  if (!tracingOn()) return answer(ctx);
  const tool = params.name;
  const server = { [MCP.methodName]: "tools/call", [GEN_AI.toolName]: tool, ...sessionOf(ctx.run) };
  return inSpan(`tools/call ${tool}`, { kind: SpanKind.SERVER, caller: ctx.actor.trace, attributes: server }, (outer) =>
    inSpan(
      `execute_tool ${tool}`,
      { kind: SpanKind.INTERNAL, attributes: { [GEN_AI.operationName]: "execute_tool", [GEN_AI.toolName]: tool } },
      async (inner) => {
        const result = await answer(ctx);
        answered(inner, result);
        answered(outer, result);
        return result;
      },
    ),
  );
}
