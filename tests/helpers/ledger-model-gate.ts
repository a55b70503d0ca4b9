// The pure retry gate as the model-based ledger tests ask it: the gate's input built from what the model put (the
// contract version an operation was planned under) and the row it reads, and the answer each worker command must get.
import type { Operation } from "@/lib/platform/generated/prisma/client";
import type { LedgerErrorCode } from "@/lib/ledger/errors";
import { approvalExpired } from "@/lib/retry-gate/approval-expiry";
import { decide } from "@/lib/retry-gate/decide";
import { isTerminal } from "@/lib/retry-gate/phases";
import type {
  ClassifiedError,
  Decision,
  EffectEvidence,
  GateContract,
  GateInput,
  GateOperation,
  Phase,
} from "@/lib/retry-gate/types";

/** The row as the gate reads it; written here rather than imported, so a misreading in the ledger shows as a mismatch. */
function modelGateOperation(row: Operation): GateOperation {
  return {
    phase: row.phase as Phase,
    attempt: row.attempt,
    evidence: row.evidence as EffectEvidence,
    approvedAttempt: row.approvedAttempt,
    firstDispatchedAt: row.firstDispatchedAt?.getTime() ?? null,
    notBefore: row.notBefore?.getTime() ?? null,
    lastError: row.lastError === null ? null : (JSON.parse(row.lastError) as ClassifiedError),
    rejectionReason: row.rejectionReason,
    approvalExpiresAt: row.approvalExpiresAt?.getTime() ?? null,
  };
}

/** The model's contracts name no dependency, so there is never a breaker to consult. */
export function modelGateInput(contract: GateContract, row: Operation, now: number): GateInput {
  return {
    operation: modelGateOperation(row),
    contract,
    breaker: null,
    breakerConfig: { failureThreshold: 5, cooldownMs: 30_000 },
    now,
  };
}

export type DispatchAnswer = "dispatched" | LedgerErrorCode;

/** What dispatch must answer, and where a refusal that needs a person must leave the operation (null: unchanged). */
export interface ExpectedDispatch {
  answer: DispatchAnswer;
  decision: Decision | null;
  routedTo: Phase | null;
}

/** The API's code for a gate decision that does not let the attempt go now (its 409 problem codes). */
function refusalOf(decision: Decision, input: GateInput): LedgerErrorCode | null {
  const op = input.operation;
  switch (decision.action) {
    case "DISPATCH":
    case "RETRY":
    case "RETRY_SAME_KEY":
      return (decision.retryAfterMs ?? 0) > 0 ? "retry_not_due" : null;
    case "APPROVAL":
      // Asking a person because the budget ran out is told apart from a request that already waits.
      return op.attempt >= input.contract.maxAttempts && op.phase !== "AWAITING_APPROVAL"
        ? "budget_spent"
        : "approval_required";
    case "RECONCILE":
      return "reconcile_required";
    case "UNAVAILABLE":
      return "breaker_open";
    case "WAIT":
      return "in_flight";
    case "STOP":
      return approvalExpired(op, input.now) ? "approval_expired" : "already_finished";
    default: {
      const unreachable: never = decision.action;
      return unreachable;
    }
  }
}

/**
 * The planner's worker dispatching with `fence`: the lease first (a stale fence, then a lease that ran out), then the
 * gate. A refusal that needs a person puts the operation in that person's queue: the approvals queue, or the unknowns
 * queue for a scheduled retry whose key the provider may have forgotten.
 */
export function expectedDispatch(row: Operation, fence: number, input: GateInput): ExpectedDispatch {
  if (fence !== row.fence) return { answer: "stale_fence", decision: null, routedTo: null };
  if (row.leaseExpiresAt === null || row.leaseExpiresAt.getTime() <= input.now) {
    return { answer: "lease_expired", decision: null, routedTo: null };
  }
  const decision = decide(input);
  const code = refusalOf(decision, input);
  if (code === null) return { answer: "dispatched", decision, routedTo: null };
  const phase = input.operation.phase;
  const routedTo =
    (code === "approval_required" || code === "budget_spent") && phase !== "AWAITING_APPROVAL"
      ? "AWAITING_APPROVAL"
      : code === "reconcile_required" && phase === "RETRY_SCHEDULED"
        ? "UNKNOWN"
        : null;
  return { answer: code, decision, routedTo };
}

export type ClaimAnswer = "claimed" | Extract<LedgerErrorCode, "lease_held" | "already_finished" | "approval_expired">;

/**
 * What claiming the lease may answer: an EXPIRED request is told so (the agent names it for a person to replay); one
 * past its deadline that the sweep has not reached yet may be leased (dispatch then refuses it) or refused the same way.
 */
export function expectedClaims(row: Operation, worker: string, now: number): ClaimAnswer[] {
  const phase = row.phase as Phase;
  if (phase === "EXPIRED") return ["approval_expired"];
  if (isTerminal(phase)) return ["already_finished"];
  const live = row.leaseExpiresAt !== null && row.leaseExpiresAt.getTime() > now;
  const answer: ClaimAnswer = live && row.leaseOwner !== worker ? "lease_held" : "claimed";
  const pastDeadline = approvalExpired({ phase, approvalExpiresAt: row.approvalExpiresAt?.getTime() ?? null }, now);
  return pastDeadline ? [answer, "approval_expired"] : [answer];
}

/**
 * A heartbeat extends only the current fence's lease, and only while something is left to run: never on a finished
 * operation, nor when no lease is held (a reconciliation ended the attempt the lease was taken for and raised the
 * fence, so its holder is stale; a lease claimed after it is extended like any other).
 */
export function expectedHeartbeat(row: Operation, fence: number): "extended" | LedgerErrorCode {
  if (fence !== row.fence) return "stale_fence";
  if (isTerminal(row.phase as Phase)) return "already_finished";
  return row.leaseOwner === null ? "lease_expired" : "extended";
}

/** A holder that stops waiting gives its lease up: with its current fence, while no attempt is in flight. */
export function expectedRelease(row: Operation, fence: number): "released" | LedgerErrorCode {
  if (fence !== row.fence) return "stale_fence";
  if (isTerminal(row.phase as Phase)) return "already_finished";
  return row.phase === "DISPATCHED" ? "in_flight" : "released";
}

/**
 * Whether attempt `n` may leave only with a person's grant for exactly that attempt: every attempt of a contract that
 * requires approval, any attempt beyond the budget, and every retry of a class whose repeat a person must allow
 * (NON_RETRYABLE, and UNKNOWN, which is reconciled first and then approved).
 */
export function personMustGrant(contract: GateContract, n: number): boolean {
  if (contract.approval === "required" || n > contract.maxAttempts) return true;
  return n > 1 && (contract.effect === "NON_RETRYABLE" || contract.effect === "UNKNOWN");
}

/**
 * Liveness's end state: finished (a terminal phase, or a reconciliation that proved the effect happened: the gate says
 * STOP), or waiting in a person's queue (an approval request, or an UNKNOWN outcome the gate sends to reconciliation).
 */
export function settled(input: GateInput, decision: Decision): boolean {
  const phase = input.operation.phase;
  if (isTerminal(phase) || decision.action === "STOP" || phase === "AWAITING_APPROVAL") return true;
  return phase === "UNKNOWN" && decision.action === "RECONCILE";
}
