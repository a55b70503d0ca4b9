// Turns how the provider call ended into an outcome, and gets that outcome to the ledger even through a brief outage.
import { ApiProblem, type Decision, type Operation, type OutcomeInput } from "./client";
import type { ProviderCall } from "./provider-call";
import type { ToolRun } from "./run-options";

/** Delays between re-sends of an outcome report that did not reach the ledger. */
const OUTCOME_REPORT_DELAYS_MS = [250, 1000, 3000];

export type OutcomeReport =
  | { kind: "reported"; operation: Operation }
  | { kind: "lease_lost"; code: "stale_fence" | "lease_expired"; decision: Decision | null };

/** Only an explicit error answer is `failed`; a throw or a timeout is `unknown` because the request may have landed. */
export function outcomeBody(fence: number, call: Exclude<ProviderCall, { kind: "lease_lost" }>): OutcomeInput {
  if (call.kind === "ambiguous") return { fence, result: "unknown", error: call.error };
  const result = call.result;
  if (result.ok) return { fence, result: "confirmed", providerId: result.providerId };
  return { fence, result: "failed", error: result.error };
}

/**
 * Reports the outcome. The provider has already been called, so a report that does not reach the ledger is
 * sent again a few times: without it the lease expires and the operation becomes UNKNOWN for a person to resolve.
 * Not tied to the caller's signal for the same reason.
 */
export async function reportOutcome(run: ToolRun, dispatched: Operation, body: OutcomeInput): Promise<OutcomeReport> {
  for (let sent = 0; ; sent++) {
    try {
      return { kind: "reported", operation: await run.client.reportOutcome(dispatched.id, body) };
    } catch (error) {
      if (error instanceof ApiProblem) {
        if (error.code === "stale_fence" || error.code === "lease_expired") {
          return { kind: "lease_lost", code: error.code, decision: error.decision };
        }
        // A conflict after a re-send: the earlier report most likely landed and its answer was lost.
        if (sent > 0 && error.status === 409) {
          return { kind: "reported", operation: await run.client.getOperation(dispatched.id) };
        }
        if (error.status < 500) throw error;
      }
      const delayMs = OUTCOME_REPORT_DELAYS_MS[sent];
      if (delayMs === undefined) throw error;
      await run.sleep(delayMs);
    }
  }
}
