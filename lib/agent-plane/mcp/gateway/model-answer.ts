// What the gateway tells a model when a call did not simply succeed: what happened, what not to do, what to do
// instead, and the operation id; the machine-readable decision goes in `_meta`.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Decision } from "@/lib/retry-gate/types";

/** Why the gateway answers with an error instead of the upstream's result. */
export type GatewayCode =
  | "no_contract"
  | "tool_changed"
  | "unknown_tool"
  | "invalid_arguments"
  | "idempotency_key_reused"
  | "approval_required"
  | "suspected_duplicate"
  | "approval_expired"
  | "outcome_unknown"
  | "breaker_open"
  | "failed"
  | "rejected"
  | "retry_not_due"
  | "in_flight"
  | "result_not_kept"
  | "already_applied"
  | "upstream_unavailable";

export interface GatewayRefusal {
  code: GatewayCode;
  tool: string;
  operationId?: string;
  decision?: Decision;
  /** A fact only this refusal knows: the schema problem, the key, the person's reason, the last error. */
  detail?: string;
  /** suspected_duplicate: the earlier operation of the same call, whose answer the client already got. */
  repeatOf?: string;
  /** The upstream's own error answer, passed on before our sentence so the model sees the tool's words too. */
  upstream?: CallToolResult;
}

function seconds(ms: number | undefined): string {
  return `${Math.max(1, Math.ceil((ms ?? 0) / 1000))} s`;
}

/** Which service is down, since when, when it is tried again, and what to do instead (Decision.unavailable). */
function breakerSentence(r: GatewayRefusal): string {
  const u = r.decision?.unavailable;
  const service = u?.dependency ? `${u.dependency} (the service behind ${r.tool})` : `The service behind ${r.tool}`;
  const since = u?.openSince ? ` since ${u.openSince}` : "";
  const until = u?.forced
    ? "an operator opened its circuit breaker" + since + ", and it stays open until a person closes it"
    : `its circuit breaker is open${since}, and it will be tried again ` +
      `${u?.nextTryAt ? `at ${u.nextTryAt}, ` : ""}in about ${seconds(r.decision?.retryAfterMs)}`;
  const instead = u?.dependency ? ` that does not need ${u.dependency}` : "";
  return (
    `${service} is unavailable: ${until}; nothing was sent. ` +
    `Do not call ${r.tool} again before then; try another approach${instead}, or tell the user.`
  );
}

function sentence(r: GatewayRefusal): string {
  const op = r.operationId ? ` (operation ${r.operationId})` : "";
  const detail = r.detail ? ` ${r.detail.replace(/\s+$/, "").replace(/([^.])$/, "$1.")}` : "";
  switch (r.code) {
    case "no_contract":
      return (
        `The tool ${r.tool} has no contract in opledger, so the gateway did not call it. ` +
        "Do not call it again; tell the user that a person must classify this tool before it can be used."
      );
    case "tool_changed":
      return (
        `The tool ${r.tool} changed since a person classified it (its description, input schema or hints differ), ` +
        "so the gateway did not call it. " +
        "Do not call it again; tell the user that an admin must look at the change and confirm it."
      );
    case "unknown_tool":
      return `There is no tool named ${r.tool} behind the gateway.${detail} Nothing was sent. List the tools again and use one of those.`;
    case "invalid_arguments":
      return `The arguments do not match the input schema of ${r.tool}:${detail} Nothing was sent. Fix the arguments and call again.`;
    case "idempotency_key_reused":
      return (
        `This call's key is already taken by an earlier call of ${r.tool} with other arguments${op}; ` +
        `nothing was sent.${detail} Do not retry it with these arguments; if it is a different call, tell the user, ` +
        "since the tool's contract treats both as the same effect."
      );
    case "approval_required":
      return (
        `This call waits for a person's approval${op}. Do not call it again with other arguments to get around it. ` +
        "Call it again after approval, or tell the user it is waiting."
      );
    case "suspected_duplicate":
      return (
        `This call is the same as an earlier one whose answer you already got (operation ${r.repeatOf ?? "unknown"}), ` +
        `and a second call of ${r.tool} may have a second effect, so it was not sent: ` +
        `it waits for a person's approval${op}; do not call it again with other arguments to get around it, ` +
        "and tell the user unless you meant to call it twice."
      );
    case "approval_expired":
      return (
        `Nobody approved this call in time, so its approval request expired${op}. ` +
        "Do not call it again; tell the user that a person can replay it from the console."
      );
    case "outcome_unknown":
      return (
        `The outcome of this call is unknown: the request may have reached ${r.tool} and had its effect${op}. ` +
        "Do not call it again: a person will look it up. Tell the user it is being checked."
      );
    case "breaker_open":
      return breakerSentence(r);
    case "failed":
      return (
        `This call failed and will not be retried${op}.${detail} ` +
        "Do not call it again with the same arguments; change them if the error says how, or tell the user."
      );
    case "rejected":
      return `A person rejected this call${op}.${detail} Do not call it again; tell the user.`;
    case "retry_not_due":
      return (
        `This call failed and may be tried again in ${seconds(r.decision?.retryAfterMs)}${op}. ` +
        "Call it again after that with the same arguments."
      );
    case "in_flight":
      return (
        `This call is still running${op}. ` +
        "Do not start it again; call it again with the same arguments in a few seconds to get its result."
      );
    case "result_not_kept":
      return `This call already succeeded${op}, but its result was too large to keep. Do not call it again: it would run a second time.`;
    case "already_applied":
      return `A person confirmed that this call's effect already happened${op}. Do not call it again.`;
    case "upstream_unavailable":
      return (
        `${r.tool} cannot be reached right now, so nothing was sent and nothing was recorded.${detail} ` +
        "Call it again in a few seconds, or tell the user."
      );
    default: {
      const unreachable: never = r.code;
      return unreachable;
    }
  }
}

export function refusalResult(r: GatewayRefusal): CallToolResult {
  return {
    content: [...(r.upstream?.content ?? []), { type: "text", text: `opledger: ${sentence(r)}` }],
    isError: true,
    _meta: {
      "opledger/code": r.code,
      ...(r.operationId ? { "opledger/operation": r.operationId } : {}),
      ...(r.repeatOf ? { "opledger/repeatOf": r.repeatOf } : {}),
      ...(r.decision ? { "opledger/decision": r.decision } : {}),
    },
  };
}
