// What a person's action on an operation does to the page: which buttons are offered, what the page shows until the
// ledger answers, and the sentence it says once the ledger has.
import type { SeenVersion } from "@/lib/console/actions/operation-actions";
import type { OperationDetail } from "@/lib/ledger/reads/operations";
import { assertNever } from "@/lib/retry-gate/exhaustive";
import { personActionsFor, type PersonAction } from "@/lib/retry-gate/person-actions";
import { afterApproval, completesQuorum, reconciledUnderQuorum } from "@/lib/retry-gate/person-decisions";

export type OperationActionKind = PersonAction;

/**
 * Which buttons to offer: the domain's rule, less the approval four-eyes keeps this person from giving; the ledger
 * enforces both again when a button is used.
 */
export function actionsFor(
  op: Pick<OperationDetail, "phase" | "evidence">,
  fourEyesTied = false,
): OperationActionKind[] {
  return personActionsFor(op.phase, op.evidence).filter((action) => !(fourEyesTied && action === "approve"));
}

export type Quorum = OperationDetail["approvals"];

/** What the person says in the reconcile dialog. */
export interface ReconcileAnswer {
  reason: string;
  outcome: "applied" | "not_applied";
  providerId?: string;
  evidence?: string;
  approveRetry: boolean;
}

/**
 * An action as the person confirmed it. `seen` is the version the person decided on; its attempt number is also what
 * the success message names. An approval also carries the quorum the person saw, so the page can say whether theirs
 * completed it.
 */
export type ActionRequest =
  | { kind: "approve"; reason: string; seen: SeenVersion; approvals: Quorum }
  | { kind: "reject"; reason: string; seen: SeenVersion }
  | ({ kind: "reconcile"; seen: SeenVersion; approvals: Quorum } & ReconcileAnswer);

/** Whether one more approval still leaves the quorum short, so the attempt is not granted yet. */
export const quorumShortAfterOne = (q: Quorum): boolean => !completesQuorum(q.given, q.needed);

/** The fields a human decision changes, as the person saw them: the ledger refuses the action if they moved. */
export const seenOf = (op: OperationDetail): SeenVersion => ({
  phase: op.phase,
  attempt: op.attempt,
  approvedAttempt: op.approvedAttempt,
  evidence: op.evidence,
});

/** What the page shows until the server's answer arrives: the phase the action leads to. */
export function optimisticDetail(op: OperationDetail, v: ActionRequest): OperationDetail {
  switch (v.kind) {
    case "approve":
      // An approval the quorum still waits beyond is counted; only the last one moves the operation on.
      return quorumShortAfterOne(op.approvals)
        ? { ...op, approvals: { ...op.approvals, given: op.approvals.given + 1 } }
        : { ...op, ...afterApproval(op) };
    case "reject":
      return { ...op, phase: "REJECTED", rejectionReason: `rejected by you: ${v.reason}` };
    case "reconcile": {
      // The ledger's own rule: with a quorum, the person's approval is the first and the operation waits for the others.
      const { awaitsQuorum, ...reconciled } = reconciledUnderQuorum(op, v, v.approvals.needed);
      return awaitsQuorum
        ? { ...op, ...reconciled, approvals: { given: 1, needed: v.approvals.needed } }
        : { ...op, ...reconciled };
    }
    default:
      return assertNever(v, "action");
  }
}

/** "one more person approves", "2 more people approve". */
const moreApprove = (more: number): string => (more === 1 ? "one more person approves" : `${more} more people approve`);

/** The sentence the page says once the ledger has accepted the action. */
export function successText(v: ActionRequest): string {
  const next = v.seen.attempt + 1;
  switch (v.kind) {
    case "approve": {
      const { given, needed } = v.approvals;
      return quorumShortAfterOne(v.approvals)
        ? `Your approval is recorded: ${given + 1} of ${needed}. ` +
            `Attempt ${next} is granted once ${moreApprove(needed - given - 1)} before the request expires.`
        : `Approved: attempt ${next} may be dispatched once. Your approval and reason are in the timeline.`;
    }
    case "reject":
      return "Rejected: no further attempt will be dispatched. Your reason is in the timeline and reaches the agent.";
    case "reconcile":
      return v.outcome === "applied"
        ? "Reconciled as “effect happened”: the operation is finished and will not be retried."
        : v.approveRetry
          ? !completesQuorum(0, v.approvals.needed)
            ? `Reconciled as “effect did not happen”, with your approval (1 of ${v.approvals.needed}); ` +
              `attempt ${next} waits for the others.`
            : `Reconciled as “effect did not happen”, and attempt ${next} is approved.`
          : "Reconciled as “effect did not happen”. A retry still needs an approval or the gate's go-ahead.";
    default:
      return assertNever(v, "action");
  }
}
