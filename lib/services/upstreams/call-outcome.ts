// Reads a failed `tools/call` as one of the gateway's outcomes. The line that matters is between not_sent (nothing
// left: safe to try again) and no_answer (it may have had its effect): anything not known to be the first is the second.
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { NotSentError } from "@/lib/services/outbound/streaming-fetch";
import type { UpstreamCall } from "./types";

/** What was known about the call when it failed, besides the error itself. */
export interface CallFailure {
  upstream: string;
  error: unknown;
  /** Our own deadline fired. */
  timedOut: boolean;
  timeoutMs: number;
  /** The connection closed (the process exited, or we stopped it) while the call was in flight. */
  closed: boolean;
  /** How the connection closed, when it did. */
  closedReason: string | null;
  /** The HTTP session the call was sent in, if any (a 404 then means the upstream forgot it). */
  hadSession: boolean;
}

/** Codes the SDK raises itself for a call that got no answer; from an upstream they are read the same way. */
const LOCAL_CODES = new Set<number>([ErrorCode.ConnectionClosed, ErrorCode.RequestTimeout]);

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** McpError prefixes "MCP error <code>: "; the upstream's own words are what follows. */
function upstreamWords(error: McpError): string {
  return error.message.replace(/^MCP error -?\d+: /, "");
}

export function callOutcome(failure: CallFailure): UpstreamCall {
  const { upstream, error } = failure;
  if (error instanceof NotSentError)
    return { outcome: "not_sent", reason: `Upstream "${upstream}": ${messageOf(error)}` };
  // The SDK says this before writing anything: the transport had no connection (the process was gone).
  if (error instanceof Error && error.message === "Not connected")
    return { outcome: "not_sent", reason: `Upstream "${upstream}" is not connected; the call was not sent.` };
  if (failure.timedOut)
    return {
      outcome: "no_answer",
      reason: `Upstream "${upstream}" did not answer within ${failure.timeoutMs} ms; the call may have had its effect.`,
    };
  if (failure.closed)
    return {
      outcome: "no_answer",
      reason:
        `Upstream "${upstream}" ${failure.closedReason ?? "closed the connection"} while the call was in flight; ` +
        "the call may have had its effect.",
    };
  // The Streamable HTTP spec: a server that ended a session answers 404 to it, without handling the request.
  if (error instanceof StreamableHTTPError && error.code === 404 && failure.hadSession)
    return {
      outcome: "not_sent",
      reason:
        `Upstream "${upstream}" no longer knows the session (HTTP 404), so it did not handle the call; the next ` +
        "call opens a new one.",
    };
  if (error instanceof StreamableHTTPError)
    return {
      outcome: "no_answer",
      reason:
        `Upstream "${upstream}" answered the call with HTTP ${error.code ?? "error"} instead of a result; the ` +
        "call may have had its effect.",
    };
  if (error instanceof McpError && !LOCAL_CODES.has(error.code))
    return { outcome: "refused", code: error.code, message: upstreamWords(error) };
  return {
    outcome: "no_answer",
    reason: `Upstream "${upstream}" gave no usable answer (${messageOf(error)}); the call may have had its effect.`,
  };
}
