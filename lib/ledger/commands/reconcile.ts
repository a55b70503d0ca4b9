// Reconcile: evidence moves an UNKNOWN operation to RECONCILED, saying whether the effect happened.
import type { Ledger } from "@/lib/ledger/ledger";
import type { Actor } from "../actor";
import { actorName } from "../actor";
import type { AuditInput } from "@/lib/ledger/audit/append";
import { LedgerError } from "../errors";
import { checkFence, checkSeen, operationCommand, writeOperation, type SeenState } from "./run-command";
import { operationView, type OperationView } from "@/lib/ledger/reads/operation-view";

export interface ReconcileInput {
  fence?: number;
  outcome: "applied" | "not_applied";
  providerId?: string;
  evidence: unknown;
  reason?: string;
  /** A person who reconciles "not applied" may approve the retry in the same step. */
  approveRetry?: boolean;
  /** When given, the reconciliation is refused if the operation moved on since the person saw it. */
  seen?: SeenState;
}

export async function reconcileOperation(
  ledger: Ledger,
  id: string,
  input: ReconcileInput,
  actor: Actor,
  now: Date,
): Promise<OperationView> {
  return operationCommand(ledger, id, actor, "reconcile", now, async (tx, { op, contract, dependency }) => {
    if (input.fence !== undefined) checkFence(op, input.fence, now, false);
    checkSeen(op, input.seen);
    if (op.phase !== "UNKNOWN") {
      throw new LedgerError("not_unknown", `Operation ${id} is ${op.phase}; only an UNKNOWN operation can be reconciled.`);
    }
    const approve = input.outcome === "not_applied" && input.approveRetry === true;
    const updated = await writeOperation(
      tx,
      op,
      {
        phase: "RECONCILED",
        evidence: input.outcome,
        evidenceJson: JSON.stringify({ evidence: input.evidence ?? null, by: actorName(actor), at: now.toISOString() }),
        providerId: input.outcome === "applied" ? (input.providerId ?? op.providerId) : op.providerId,
        notBefore: null,
        ...(approve ? { approvedAttempt: op.attempt + 1 } : {}),
      },
      now,
    );
    const said = input.outcome === "applied" ? "the effect happened" : "the effect did not happen";
    const audit: AuditInput[] = [
      {
        subjectType: "operation",
        subjectId: id,
        actor,
        action: "operation.reconciled",
        fromPhase: "UNKNOWN",
        toPhase: "RECONCILED",
        reason: input.reason ? `${said}: ${input.reason}` : said,
        data: { outcome: input.outcome, providerId: input.providerId ?? null, evidence: input.evidence ?? null },
        at: now,
      },
    ];
    if (approve) {
      audit.push(
        { subjectType: "operation", subjectId: id, actor, action: "operation.approved", fromPhase: "RECONCILED", toPhase: "RECONCILED", reason: input.reason ?? "retry approved with the reconciliation", data: { grantedAttempt: op.attempt + 1 }, at: now },
      );
    }
    await tx.appendAudit(audit);
    return operationView(updated, contract, dependency, now);
  });
}
