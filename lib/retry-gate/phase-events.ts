// The events of an operation, and the one function that answers the phase an event leads to: every ledger command asks
// it and writes what it answers, as XState's core asks a machine for the next state of an event. TRANSITIONS
// (phases.ts) stays the one table of legal moves: an answer it does not list is refused, never written.
import type { FailureStep } from "./decide";
import { assertNever } from "./exhaustive";
import { IllegalTransitionError, assertTransition } from "./phases";
import type { Decision, Phase } from "./types";

/**
 * What can happen to an operation that moves its phase. Where one of the gate's decision functions already decided
 * what follows (decide, decideAfterFailure, afterApproval, reconciledUnderQuorum), the event carries its answer, and
 * the phase comes from it rather than from a second copy of the rule.
 */
export type PhaseEvent =
  /** A new operation is held for a person before its first attempt (a plan, a replay). */
  | { type: "approval_requested" }
  /** The gate let the next attempt go: authorized and, in the same write, durable as sent before the call leaves. */
  | { type: "dispatched" }
  /** The gate did not let the attempt go: its decision says where the operation waits now, if anywhere else. */
  | { type: "dispatch_refused"; decision: Decision }
  /** The provider confirmed the attempt in flight. */
  | { type: "confirmed" }
  /** The worker does not know whether the attempt in flight took effect. */
  | { type: "outcome_unknown" }
  /** The attempt in flight failed: decideAfterFailure's step says what follows. */
  | { type: "failed"; step: Pick<FailureStep, "phase"> }
  /** The lease ran out while the attempt was in flight (the sweep, or a claim that came before it). */
  | { type: "lost_in_flight" }
  /** Evidence settled an unknown outcome: reconciledUnderQuorum's answer (reconciled, or waiting for the quorum). */
  | { type: "reconciled"; decision: { phase: Phase } }
  /** The approval that completes the quorum: afterApproval's answer (a first attempt planned again, a retry scheduled). */
  | { type: "approved"; decision: { phase: Phase } }
  /** A person ended the operation. */
  | { type: "rejected" }
  /** Nobody decided on the approval request in time (the system's sweep). */
  | { type: "expired" };

export type PhaseEventType = PhaseEvent["type"];

declare const fromTheGate: unique symbol;

/**
 * The gate's answer to an event: the phase it leads to, and the one it passes on the way. Only nextPhase makes one
 * (the brand keeps a command from writing an object of its own), and writeOperation (lib/ledger/commands/run-command.ts)
 * writes only this.
 */
export interface PhaseMove {
  readonly from: Phase;
  /** `from` itself when the event leaves the phase as it is (a refused dispatch that waits where it is). */
  readonly to: Phase;
  /** The phase passed on the way, recorded in the audit trail but never left in the row. */
  readonly through: Phase | null;
  readonly [fromTheGate]: true;
}

type Target = { to: Phase; through?: Phase } | "stay";

/**
 * The events that speak of one attempt, one request or a new operation, and so apply only while there is one. The
 * others apply wherever TRANSITIONS lets their answer go.
 */
const ONLY_FROM: Partial<Record<PhaseEventType, readonly Phase[]>> = {
  approval_requested: ["PLANNED"],
  confirmed: ["DISPATCHED"],
  outcome_unknown: ["DISPATCHED"],
  failed: ["DISPATCHED"],
  lost_in_flight: ["DISPATCHED"],
  reconciled: ["UNKNOWN"],
  approved: ["AWAITING_APPROVAL"],
  expired: ["AWAITING_APPROVAL"],
};

/**
 * Where a refused dispatch leaves the operation: the approvals queue when a person must decide, the unknowns queue
 * when a waiting retry can no longer be trusted to converge (its key retention ran out), FAILED when the run's
 * allowance refused the retry as it was about to leave; anywhere else it stays, to be asked again.
 */
function heldBy(from: Phase, decision: Decision): Target {
  if (decision.runAllowance !== undefined) return { to: "FAILED" };
  switch (decision.action) {
    case "APPROVAL":
      return from === "AWAITING_APPROVAL" ? "stay" : { to: "AWAITING_APPROVAL" };
    case "RECONCILE":
      return from === "RETRY_SCHEDULED" ? { to: "UNKNOWN" } : "stay";
    case "DISPATCH":
    case "RETRY":
    case "RETRY_SAME_KEY":
    case "WAIT":
    case "UNAVAILABLE":
    case "STOP":
      return "stay";
    default:
      return assertNever(decision.action, "decision action");
  }
}

function targetOf(from: Phase, event: PhaseEvent): Target {
  switch (event.type) {
    case "approval_requested":
      return { to: "AWAITING_APPROVAL" };
    case "dispatched":
      return { to: "DISPATCHED", through: "AUTHORIZED" };
    case "dispatch_refused":
      return heldBy(from, event.decision);
    case "confirmed":
      return { to: "CONFIRMED" };
    case "outcome_unknown":
    case "lost_in_flight":
      return { to: "UNKNOWN" };
    case "failed":
      return { to: event.step.phase };
    case "reconciled":
      // A reconciliation is recorded as RECONCILED even when the quorum's wait follows it in the same write.
      return event.decision.phase === "RECONCILED"
        ? { to: "RECONCILED" }
        : { to: event.decision.phase, through: "RECONCILED" };
    case "approved":
      return { to: event.decision.phase };
    case "rejected":
      return { to: "REJECTED" };
    case "expired":
      return { to: "EXPIRED" };
    default:
      return assertNever(event, "phase event");
  }
}

/**
 * The phase `event` leads an operation in `from` to, or an IllegalTransitionError: for a move TRANSITIONS does not
 * list (each step of it, when it passes a phase on the way), and for an event sent to a phase it does not apply to.
 */
export function nextPhase(from: Phase, event: PhaseEvent): PhaseMove {
  const target = targetOf(from, event);
  if (target === "stay") return { from, to: from, through: null } as PhaseMove;
  const only = ONLY_FROM[event.type];
  if (only !== undefined && !only.includes(from)) {
    throw new IllegalTransitionError(from, target.to, { event: event.type, from: only });
  }
  if (target.through === undefined) {
    assertTransition(from, target.to);
    return { from, to: target.to, through: null } as PhaseMove;
  }
  assertTransition(from, target.through);
  assertTransition(target.through, target.to);
  return { from, to: target.to, through: target.through } as PhaseMove;
}

/** The phase an audit record of the move's first step names as its end: the one passed on the way, else the last. */
export function firstStepEnd(move: PhaseMove): Phase {
  return move.through ?? move.to;
}
