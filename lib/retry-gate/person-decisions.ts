// Where a person's decision sends an operation: one rule for the ledger (which writes it) and the console's
// optimistic update (which shows it until the ledger answers).
import type { EffectEvidence, Phase } from "./types";

interface DecidedOn {
  attempt: number;
  providerId: string | null;
  approvedAttempt: number | null;
}

/**
 * Whether one more approval, after `given` others, completes a quorum of `needed`: only the approval that completes
 * it grants the attempt; those before it are recorded and wait.
 */
export function completesQuorum(given: number, needed: number): boolean {
  return given + 1 >= needed;
}

/** An approval grants exactly the next attempt: a first attempt is planned again, a later one scheduled as a retry. */
export function afterApproval(op: Pick<DecidedOn, "attempt">): { phase: Phase; approvedAttempt: number } {
  return { phase: op.attempt === 0 ? "PLANNED" : "RETRY_SCHEDULED", approvedAttempt: op.attempt + 1 };
}

export interface Reconciliation {
  outcome: Extract<EffectEvidence, "applied" | "not_applied">;
  providerId?: string;
  /** "The effect did not happen, and it may be tried once more": the human gate, given with the evidence. */
  approveRetry?: boolean;
}

/** Whether a reconciliation also opens the human gate: only "did not happen" may grant another attempt. */
export function grantsRetry(input: Reconciliation): boolean {
  return input.outcome === "not_applied" && input.approveRetry === true;
}

/**
 * A reconciliation's evidence: an effect that happened keeps the provider id given for it (else the one the operation
 * had); "did not happen" with approveRetry grants exactly the next attempt.
 */
export function afterReconciliation(
  op: DecidedOn,
  input: Reconciliation,
): { phase: Phase; evidence: EffectEvidence; providerId: string | null; approvedAttempt: number | null } {
  return {
    phase: "RECONCILED",
    evidence: input.outcome,
    providerId: input.outcome === "applied" ? (input.providerId ?? op.providerId) : op.providerId,
    approvedAttempt: grantsRetry(input) ? op.attempt + 1 : op.approvedAttempt,
  };
}

/**
 * A reconciliation as the ledger writes it under the contract's quorum: "did not happen" with approveRetry is the
 * person's approval, so under a quorum of more than one it is the first and the operation waits for the others
 * (AWAITING_APPROVAL, nothing granted yet); otherwise afterReconciliation.
 */
export function reconciledUnderQuorum(
  op: DecidedOn,
  input: Reconciliation,
  quorum: number,
): ReturnType<typeof afterReconciliation> & { awaitsQuorum: boolean } {
  const awaitsQuorum = grantsRetry(input) && !completesQuorum(0, quorum);
  return awaitsQuorum
    ? { ...afterReconciliation(op, { ...input, approveRetry: false }), phase: "AWAITING_APPROVAL", awaitsQuorum }
    : { ...afterReconciliation(op, input), awaitsQuorum };
}
