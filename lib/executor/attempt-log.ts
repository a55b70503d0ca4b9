// The one log line per attempt: what the attempt came to, how long backoff waited before it, and what the gate said.
import type { Decision, OutcomeInput } from "./client";
import type { ToolRun } from "./run-options";

export function logAttempt(
  run: Pick<ToolRun, "tool" | "log">,
  attempt: number,
  what: string,
  waitedMs: number,
  decision: Decision | null,
): void {
  const next = decision
    ? `; gate: ${decision.action}${decision.retryAfterMs !== undefined ? ` in ${decision.retryAfterMs} ms` : ""} (${decision.reason})`
    : "";
  run.log(`[opledger] ${run.tool} attempt ${attempt}: ${what}; backoff waited ${waitedMs} ms${next}`);
}

export function describeOutcome(outcome: OutcomeInput): string {
  if (!outcome.error) return outcome.result;
  const status = outcome.error.httpStatus !== undefined ? `, HTTP ${outcome.error.httpStatus}` : "";
  return `${outcome.result} (${outcome.error.kind ?? "unclassified"}${status})`;
}
