// What runTool tells its caller, and how where the operation stands maps onto it.
import type { Phase } from "../retry-gate/types";
import type { Decision, Operation } from "./client";
import type { ProviderResult } from "./provider";

/** Enough of the operation to tell a person which one, and where it stands. */
export interface OperationSummary {
  id: string;
  tool: string;
  phase: Phase;
  attempt: number;
  idempotencyKey: string;
  providerId: string | null;
}

interface ResultBase {
  operation: OperationSummary;
  /** The gate's decision: what happens next and why, in a sentence a person can read. */
  decision: Decision;
}

export type LeaseLossCode = "lease_held" | "stale_fence" | "lease_expired";

export type RunToolResult =
  /** The effect happened. `value` is what the provider returned (undefined when an earlier run confirmed it). */
  | (ResultBase & { status: "confirmed"; providerId: string | null; value: unknown })
  /** The outcome is ambiguous: a lookup or a person must prove what happened before anything is repeated. */
  | (ResultBase & { status: "needs_reconcile" })
  /** Handed over to a person: the next attempt needs an approval. */
  | (ResultBase & { status: "needs_approval" })
  /** The dependency's circuit breaker is open. */
  | (ResultBase & { status: "unavailable" })
  /** Ended without the effect (fatal error or budget spent). */
  | (ResultBase & { status: "failed" })
  /** A person rejected the operation; `reason` is theirs. */
  | (ResultBase & { status: "rejected"; reason: string })
  /** Nobody approved in time: the approval request expired and nothing was sent (a person can replay it). */
  | (ResultBase & { status: "approval_expired" })
  /** Another worker holds or took over the lease: this worker must not touch the operation. */
  | (ResultBase & { status: "lease_lost"; code: LeaseLossCode })
  /** The next attempt is due later than maxWaitMs: run again (same idempotencyKey) after retryAfterMs. */
  | (ResultBase & { status: "waiting"; retryAfterMs: number });

/** Maps where the operation stands to what the caller is told. */
export function resultFor(operation: Operation, decision: Decision, answer?: ProviderResult): RunToolResult {
  const summary = summarize(operation);
  switch (decision.action) {
    case "STOP":
      if (operation.phase === "CONFIRMED" || (operation.phase === "RECONCILED" && operation.evidence === "applied")) {
        const providerId = (answer?.ok ? answer.providerId : undefined) ?? operation.providerId ?? null;
        return {
          status: "confirmed",
          operation: summary,
          decision,
          providerId,
          value: answer?.ok ? answer.value : undefined,
        };
      }
      if (operation.phase === "EXPIRED") return { status: "approval_expired", operation: summary, decision };
      if (operation.phase === "REJECTED") {
        return {
          status: "rejected",
          operation: summary,
          decision,
          reason: operation.rejectionReason ?? decision.reason,
        };
      }
      return { status: "failed", operation: summary, decision };
    case "RECONCILE":
      return { status: "needs_reconcile", operation: summary, decision };
    case "APPROVAL":
      return { status: "needs_approval", operation: summary, decision };
    case "UNAVAILABLE":
      return { status: "unavailable", operation: summary, decision };
    case "DISPATCH":
    case "RETRY":
    case "RETRY_SAME_KEY":
    case "WAIT":
      return waiting(operation, decision, decision.retryAfterMs ?? 0);
    default: {
      const unhandled: never = decision.action;
      throw new Error(`unhandled decision ${String(unhandled)}`);
    }
  }
}

/** Whether a decision ends this run (as opposed to "go again"). */
export function settles(decision: Decision): boolean {
  return ["STOP", "RECONCILE", "APPROVAL", "UNAVAILABLE"].includes(decision.action);
}

export function waiting(operation: Operation, decision: Decision, retryAfterMs: number): RunToolResult {
  return { status: "waiting", operation: summarize(operation), decision, retryAfterMs };
}

export function leaseLost(operation: Operation, code: LeaseLossCode, decision: Decision | null): RunToolResult {
  return { status: "lease_lost", operation: summarize(operation), decision: decision ?? operation.decision, code };
}

export function summarize(operation: Operation): OperationSummary {
  return {
    id: operation.id,
    tool: operation.tool,
    phase: operation.phase,
    attempt: operation.attempt,
    idempotencyKey: operation.idempotencyKey,
    providerId: operation.providerId ?? null,
  };
}
