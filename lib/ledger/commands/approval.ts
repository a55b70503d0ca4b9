// Approve (grants exactly one attempt) and reject (ends the operation): the same code for the console and the API.
import { env } from "@/lib/config/env";
import type { Ledger } from "@/lib/ledger/ledger";
import { personActionsFor } from "@/lib/retry-gate/person-actions";
import { afterApproval } from "@/lib/retry-gate/person-decisions";
import type { EffectEvidence, Phase } from "@/lib/retry-gate/types";
import type { Actor } from "../actor";
import { actorName } from "../actor";
import { LedgerError } from "../errors";
import { checkSeen, operationCommand, writeOperation, type SeenState } from "./run-command";
import { operationView, type OperationView } from "@/lib/ledger/reads/operation-view";

export interface DecisionInput {
  reason: string;
  /** When given, the decision is refused if the operation moved on since the person saw it. */
  seen?: SeenState;
}

export async function approveOperation(
  ledger: Ledger,
  id: string,
  input: DecisionInput,
  actor: Actor,
  now: Date,
  options: { fourEyes: boolean } = { fourEyes: env().OPLEDGER_FOUR_EYES === "on" },
): Promise<OperationView> {
  return operationCommand(ledger, id, actor, "approve", now, async (tx, { op, contract, dependency }) => {
    checkSeen(op, input.seen);
    if (op.phase !== "AWAITING_APPROVAL") {
      throw new LedgerError(
        "not_awaiting_approval",
        `Operation ${id} is ${op.phase}, not waiting for approval; someone may have decided already.`,
      );
    }
    if (options.fourEyes && op.approvalRequestedBy !== null && op.approvalRequestedBy === actorName(actor)) {
      throw new LedgerError(
        "four_eyes",
        `${actorName(actor)} asked for this approval and cannot give it too; another person must approve.`,
      );
    }
    const { phase, approvedAttempt } = afterApproval(op);
    const updated = await writeOperation(tx, op, { phase, approvedAttempt, notBefore: null }, now);
    await tx.appendAudit([
      {
        subjectType: "operation",
        subjectId: id,
        actor,
        action: "operation.approved",
        fromPhase: op.phase,
        toPhase: phase,
        reason: input.reason,
        data: { grantedAttempt: approvedAttempt, approvedBy: actorName(actor) },
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
    const rejectionReason = `rejected by ${actorName(actor)}: ${input.reason}`;
    const updated = await writeOperation(tx, op, { phase: "REJECTED", rejectionReason, notBefore: null }, now);
    await tx.appendAudit([
      {
        subjectType: "operation",
        subjectId: id,
        actor,
        action: "operation.rejected",
        fromPhase: op.phase,
        toPhase: "REJECTED",
        reason: input.reason,
        at: now,
      },
    ]);
    return operationView(updated, contract, dependency, now);
  });
}
