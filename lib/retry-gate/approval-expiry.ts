// When a request for a person's approval runs out: one rule for the ledger (which sets the deadline and whose sweep
// moves the operation to EXPIRED), the gate's decision, and the console.
import type { GateContract, GateOperation } from "./types";

const HOUR = 3_600_000;

/**
 * docs/authority.md#approvals-are-bound-and-expire: a contract may set approvalTtlMs from 1 s to 30 days; without one,
 * a request waits 24 h.
 */
export const APPROVAL_TTL_MS = { default: 24 * HOUR, min: 1_000, max: 30 * 24 * HOUR } as const;

/** How long a request under this contract may wait for a person. */
export function approvalTtl(contract: Pick<GateContract, "approvalTtlMs">): number {
  return contract.approvalTtlMs ?? APPROVAL_TTL_MS.default;
}

/** The deadline of a request made at `requestedAt`: to be written whenever an operation moves to AWAITING_APPROVAL. */
export function approvalExpiresAt(requestedAt: number, contract: Pick<GateContract, "approvalTtlMs">): number {
  return requestedAt + approvalTtl(contract);
}

/**
 * Whether the operation's approval request has run out: it is EXPIRED, or it still waits after its deadline because
 * the sweep has not come by yet (so nobody can approve it in that gap). At the deadline itself the request still
 * stands, since it expires only after waiting longer than the TTL; a sweep selecting `approvalExpiresAt < now` agrees.
 */
export function approvalExpired(op: Pick<GateOperation, "phase" | "approvalExpiresAt">, now: number): boolean {
  if (op.phase === "EXPIRED") return true;
  // A deadline read outside AWAITING_APPROVAL would be one left over from an earlier request.
  return op.phase === "AWAITING_APPROVAL" && op.approvalExpiresAt !== null && now > op.approvalExpiresAt;
}
