// Approve (grants exactly one attempt) and reject (ends the operation): the same code for the console and the API.
import { env } from "@/lib/platform/config/env";
import type { Ledger } from "@/lib/ledger/ledger";
import { personActionsFor } from "@/lib/retry-gate/person-actions";
import { afterApproval, completesQuorum } from "@/lib/retry-gate/person-decisions";
import { nextPhase } from "@/lib/retry-gate/phase-events";
import type { EffectEvidence, Phase } from "@/lib/retry-gate/types";
import { actorLabel, type Actor } from "../actor";
import { LedgerError } from "../errors";
import { approversOf, checkApprover, requirePerson } from "./authority";
import { keyOwnersForOperation } from "./key-owners";
import { checkSeen, operationCommand, writeOperation, type SeenState } from "./run-command";
import { gateOperation, operationView, type OperationView } from "@/lib/ledger/reads/operation-view";
import { approvalExpired } from "@/lib/retry-gate/approval-expiry";

export interface DecisionInput {
  reason: string;
  /** When given, the decision is refused if the operation moved on since the person saw it. */
  seen?: SeenState;
}

/**
 * A person's approval: the human gate (a person, never an agent key), four-eyes against every principal tied to the
 * operation and the quorum, by principal id. The
 * last approval the contract's quorum needs grants exactly one attempt; those before it are recorded and wait.
 */
export async function approveOperation(
  ledger: Ledger,
  id: string,
  input: DecisionInput,
  actor: Actor,
  now: Date,
  options: { fourEyes: boolean } = { fourEyes: env().OPLEDGER_FOUR_EYES === "on" },
): Promise<OperationView> {
  const owners = await keyOwnersForOperation(ledger, id);
  return operationCommand(ledger, id, actor, "approve", now, async (tx, { op, contract, dependency }) => {
    requirePerson(actor, "Approving an attempt");
    checkSeen(op, input.seen);
    if (approvalExpired(gateOperation(op), now.getTime())) {
      throw new LedgerError(
        "approval_expired",
        `The approval request for ${id} expired at ${op.approvalExpiresAt?.toISOString()}; it can no longer be approved.`,
      );
    }
    if (op.phase !== "AWAITING_APPROVAL") {
      throw new LedgerError(
        "not_awaiting_approval",
        `Operation ${id} is ${op.phase}, not waiting for approval; someone may have decided already.`,
      );
    }
    const principal = checkApprover(op, actor, options.fourEyes, owners);
    const approvers = [...approversOf(op), principal];
    if (!completesQuorum(approvers.length - 1, contract.approvals)) {
      const updated = await writeOperation(tx, op, { approvers: approvers.join(",") }, now);
      await tx.appendAudit([
        {
          subjectType: "operation",
          subjectId: id,
          actor,
          action: "operation.approval_given",
          fromPhase: op.phase,
          toPhase: op.phase,
          reason: input.reason,
          data: { approvals: approvers.length, quorum: contract.approvals },
          at: now,
        },
      ]);
      return operationView(updated, contract, dependency, now);
    }
    const decision = afterApproval(op);
    const move = nextPhase(op.phase, { type: "approved", decision });
    const updated = await writeOperation(
      tx,
      op,
      { approvedAttempt: decision.approvedAttempt, notBefore: null, approvers: null, approvalExpiresAt: null },
      now,
      move,
    );
    await tx.appendAudit([
      {
        subjectType: "operation",
        subjectId: id,
        actor,
        action: "operation.approved",
        fromPhase: move.from,
        toPhase: move.to,
        reason: input.reason,
        data: { grantedAttempt: decision.approvedAttempt, approvals: approvers.length, quorum: contract.approvals },
        at: now,
      },
    ]);
    return operationView(updated, contract, dependency, now);
  });
}

export async function rejectOperation(
  ledger: Ledger,
  id: string,
  input: DecisionInput,
  actor: Actor,
  now: Date,
): Promise<OperationView> {
  return operationCommand(ledger, id, actor, "reject", now, async (tx, { op, contract, dependency }) => {
    checkSeen(op, input.seen);
    if (!personActionsFor(op.phase as Phase, op.evidence as EffectEvidence).includes("reject")) {
      throw new LedgerError("not_rejectable", `Operation ${id} is ${op.phase}; it can no longer be rejected.`);
    }
    const rejectionReason = `rejected by ${actorLabel(actor)}: ${input.reason}`;
    const move = nextPhase(op.phase as Phase, { type: "rejected" });
    const updated = await writeOperation(
      tx,
      op,
      { rejectionReason, notBefore: null, approvers: null, approvalExpiresAt: null },
      now,
      move,
    );
    await tx.appendAudit([
      {
        subjectType: "operation",
        subjectId: id,
        actor,
        action: "operation.rejected",
        fromPhase: move.from,
        toPhase: move.to,
        reason: input.reason,
        at: now,
      },
    ]);
    return operationView(updated, contract, dependency, now);
  });
}
