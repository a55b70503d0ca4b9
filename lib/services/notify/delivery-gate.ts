// Whether a failed delivery is tried again, and when: decided by our own retry gate, a delivery being an IDEMPOTENT
// operation (the receiver drops a repeated webhook-id), its HTTP result classified like any provider's answer.
import { classifyError } from "@/lib/retry-gate/classify-error";
import { decideAfterFailure } from "@/lib/retry-gate/decide";
import type { ClassifiedError, GateContract, GateInput, ReportedError } from "@/lib/retry-gate/types";
import type { OutboundResult } from "@/lib/services/outbound/refusal";

export interface DeliveryPolicy {
  maxAttempts: number;
  backoff: { baseMs: number; maxMs: number };
}

/** About a day and a half of tries at most: 5 s doubling to an hour, with full jitter. */
export const DEFAULT_DELIVERY_POLICY: DeliveryPolicy = {
  maxAttempts: 12,
  backoff: { baseMs: 5_000, maxMs: 3_600_000 },
};

export function deliveryContract(policy: DeliveryPolicy): GateContract {
  return {
    effect: "IDEMPOTENT",
    approval: "not_required",
    maxAttempts: policy.maxAttempts,
    backoff: policy.backoff,
    approvalTtlMs: null,
  };
}

/** A 2xx is delivered; anything else is an error as a worker would report it. */
export function reportedError(result: OutboundResult): ReportedError | null {
  switch (result.outcome) {
    case "answered":
      return result.status >= 200 && result.status < 300
        ? null
        : { httpStatus: result.status, message: `answered ${result.status}` };
    case "refused":
      // Nothing left (or a redirect was not followed): the rules will refuse it again.
      return { kind: "forbidden", message: result.reason };
    case "failed":
      switch (result.kind) {
        case "timeout":
          return { kind: "timeout", message: result.reason };
        case "unreachable":
        case "unresolved":
          return { kind: "connection_refused", message: result.reason };
        case "invalid":
          return { kind: "validation", message: result.reason };
        default: {
          const never: never = result.kind;
          return never;
        }
      }
    default: {
      const never: never = result;
      return never;
    }
  }
}

export type DeliveryStep = { retryAt: Date; error: ClassifiedError } | { giveUp: string; error: ClassifiedError };

/** The step after attempt number `attempts` (already counted) failed. */
export function afterFailedDelivery(
  reported: ReportedError,
  attempts: number,
  firstAttemptAt: Date,
  now: Date,
  policy: DeliveryPolicy,
  random: () => number,
): DeliveryStep {
  const error = classifyError(reported);
  const input: GateInput = {
    operation: {
      phase: "DISPATCHED",
      attempt: attempts,
      evidence: "none",
      approvedAttempt: null,
      firstDispatchedAt: firstAttemptAt.getTime(),
      notBefore: null,
      lastError: null,
      rejectionReason: null,
      approvalExpiresAt: null,
    },
    contract: deliveryContract(policy),
    breaker: null,
    breakerConfig: { failureThreshold: 5, cooldownMs: 30_000 },
    now: now.getTime(),
  };
  const step = decideAfterFailure(input, error, random);
  if (step.phase === "RETRY_SCHEDULED" && step.notBefore !== null) return { retryAt: new Date(step.notBefore), error };
  return { giveUp: step.decision.reason, error };
}
