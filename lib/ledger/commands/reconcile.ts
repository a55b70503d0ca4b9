// Reconcile: evidence moves an UNKNOWN operation to RECONCILED, saying whether the effect happened.
import type { Ledger } from "@/lib/ledger/ledger";
import { grantsRetry, reconciledUnderQuorum, type Reconciliation } from "@/lib/retry-gate/person-decisions";
import { firstStepEnd, nextPhase } from "@/lib/retry-gate/phase-events";
import { env } from "@/lib/platform/config/env";
import { actorLabel, personOf, type Actor } from "../actor";
import { approvalRequest, checkApprover, requirePerson } from "./authority";
import { keyOwnersForOperation } from "./key-owners";
import type { AuditInput } from "@/lib/ledger/audit/append";
import { LedgerError } from "../errors";
import { checkFence, checkSeen, operationCommand, writeOperation, type SeenState } from "./run-command";
import { operationView, type OperationView } from "@/lib/ledger/reads/operation-view";

export interface ReconcileInput extends Reconciliation {
  fence?: number;
  evidence: unknown;
  reason?: string;
  /** When given, the reconciliation is refused if the operation moved on since the person saw it. */
  seen?: SeenState;
}

/**
 * What a reconciliation must say, for the API and the console alike: a retry is approved only with "did not happen",
 * and a person who says the effect happened names the provider's id for it (an agent's lookup may not know it). Who
 * may approve the retry is the human gate's rule (requirePerson), checked by reconcileOperation.
 */
export function reconcileInputErrors(input: Reconciliation, actor: Actor): Record<string, string[]> | null {
  const errors: Record<string, string[]> = {};
  if (input.outcome === "applied" && input.approveRetry) {
    errors.approveRetry = ["A retry can only be approved when the effect did not happen."];
  }
  if (input.outcome === "applied" && !input.providerId && personOf(actor) !== null) {
    errors.providerId = ["Give the provider's id for the effect that happened."];
  }
  return Object.keys(errors).length > 0 ? errors : null;
}

export async function reconcileOperation(
  ledger: Ledger,
  id: string,
  input: ReconcileInput,
  actor: Actor,
  now: Date,
  options: { fourEyes: boolean } = { fourEyes: env().OPLEDGER_FOUR_EYES === "on" },
): Promise<OperationView> {
  const approve = grantsRetry(input);
  const owners = approve ? await keyOwnersForOperation(ledger, id) : new Map<string, string | null>();
  return operationCommand(ledger, id, actor, "reconcile", now, async (tx, { op, contract, dependency }) => {
    // The human gate comes first: an agent key asking for a retry changes nothing, whatever else it sent.
    const approver = approve
      ? (requirePerson(actor, "Approving a retry"), checkApprover(op, actor, options.fourEyes, owners))
      : null;
    if (input.fence !== undefined) checkFence(op, input.fence, now, false);
    checkSeen(op, input.seen);
    if (op.phase !== "UNKNOWN") {
      throw new LedgerError(
        "not_unknown",
        `Operation ${id} is ${op.phase}; only an UNKNOWN operation can be reconciled.`,
      );
    }
    const problems = reconcileInputErrors(input, actor);
    if (problems) throw new LedgerError("invalid_body", "Some fields need attention.", { errors: problems });
    // A quorum of more than one: this person's approval is the first, and the operation waits for the others.
    const { awaitsQuorum, phase, ...reconciled } = reconciledUnderQuorum(op, input, contract.approvals);
    const move = nextPhase(op.phase, { type: "reconciled", decision: { phase } });
    const updated = await writeOperation(
      tx,
      op,
      {
        ...reconciled,
        ...approvalRequest(move.to, contract, now),
        ...(awaitsQuorum ? { approvers: approver } : {}),
        evidenceJson: JSON.stringify({
          evidence: input.evidence ?? null,
          by: actorLabel(actor),
          at: now.toISOString(),
        }),
        notBefore: null,
        // The attempt the lease was taken for is over: its holder is fenced out, and the next step starts with a claim.
        fence: op.fence + 1,
        leaseOwner: null,
        leaseExpiresAt: null,
      },
      now,
      move,
    );
    const said = input.outcome === "applied" ? "the effect happened" : "the effect did not happen";
    const audit: AuditInput[] = [
      {
        subjectType: "operation",
        subjectId: id,
        actor,
        action: "operation.reconciled",
        fromPhase: move.from,
        toPhase: firstStepEnd(move),
        reason: input.reason ? `${said}: ${input.reason}` : said,
        data: {
          outcome: input.outcome,
          providerId: input.providerId ?? null,
          evidence: input.evidence ?? null,
          fence: op.fence + 1,
        },
        at: now,
      },
    ];
    if (approve) {
      audit.push({
        subjectType: "operation",
        subjectId: id,
        actor,
        action: awaitsQuorum ? "operation.approval_given" : "operation.approved",
        fromPhase: firstStepEnd(move),
        toPhase: move.to,
        reason: input.reason ?? "retry approved with the reconciliation",
        data: awaitsQuorum
          ? { approvals: 1, quorum: contract.approvals }
          : { grantedAttempt: reconciled.approvedAttempt, approvals: 1, quorum: contract.approvals },
        at: now,
      });
    }
    await tx.appendAudit(audit);
    return operationView(updated, contract, dependency, now);
  });
}
