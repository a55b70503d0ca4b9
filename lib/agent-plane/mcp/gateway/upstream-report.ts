// How an upstream's answer (or its absence) is reported to the ledger: confirmed with the answer kept, a failed
// attempt of a kind the gate classifies, or an unknown outcome.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { OutcomeInput } from "@/lib/ledger/commands/outcome";
import type { UpstreamCall } from "@/lib/services/upstreams/types";

/**
 * The largest answer kept to serve the same call again (docs/mcp.md#what-happens-to-a-call); a larger one is confirmed
 * but not kept.
 */
const MAX_KEPT_RESULT_BYTES = 256 * 1024;
const MAX_MESSAGE = 500;

/** JSON-RPC errors that say the tool never ran: the request itself was refused. */
const INVALID_PARAMS = -32602;
const METHOD_NOT_FOUND = -32601;

/** The answer as stored, or undefined when it is too large to keep. */
function keptResult(result: CallToolResult): string | undefined {
  const json = JSON.stringify(result);
  return Buffer.byteLength(json) <= MAX_KEPT_RESULT_BYTES ? json : undefined;
}

function errorText(result: CallToolResult): string {
  const text = result.content
    .flatMap((part) => (part.type === "text" ? [part.text] : []))
    .join(" ")
    .trim();
  return (text || "the tool answered with an error").slice(0, MAX_MESSAGE);
}

export function upstreamReport(sent: UpstreamCall): Omit<OutcomeInput, "fence"> {
  switch (sent.outcome) {
    case "answered": {
      if (sent.result.isError) {
        return { result: "failed", error: { kind: "tool_error", message: errorText(sent.result) } };
      }
      const kept = keptResult(sent.result);
      return { result: "confirmed", ...(kept !== undefined ? { resultJson: kept } : {}) };
    }
    case "refused": {
      const message = `${sent.message} (JSON-RPC ${sent.code})`.slice(0, MAX_MESSAGE);
      if (sent.code === INVALID_PARAMS) return { result: "failed", error: { kind: "validation", message } };
      if (sent.code === METHOD_NOT_FOUND) return { result: "failed", error: { kind: "not_found", message } };
      // Any other error may have been raised after the tool acted: the contract's toolError says what it means.
      return { result: "failed", error: { kind: "tool_error", message } };
    }
    case "not_sent":
      return { result: "failed", error: { kind: "connection_refused", message: sent.reason.slice(0, MAX_MESSAGE) } };
    case "no_answer":
      return { result: "unknown", error: { kind: "timeout", message: sent.reason.slice(0, MAX_MESSAGE) } };
    default: {
      const unreachable: never = sent;
      return unreachable;
    }
  }
}
