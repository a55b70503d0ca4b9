// One operation as a row of the ledger and the queues: only the fields those tables show (the Approvals queue's deadline
// and quorum included), not its arguments or evidence.
import type { OperationView } from "@/lib/ledger/reads/operation-view";

export type OperationRow = Pick<
  OperationView,
  | "id"
  | "tool"
  | "contractVersion"
  | "effect"
  | "phase"
  | "attempt"
  | "maxAttempts"
  | "approvedAttempt"
  | "approvalExpiresAt"
  | "approvals"
  | "decision"
  | "runId"
  | "agentId"
  | "via"
  | "lastError"
  | "createdAt"
  | "updatedAt"
>;

export function operationRow(op: OperationView): OperationRow {
  return {
    id: op.id,
    tool: op.tool,
    contractVersion: op.contractVersion,
    effect: op.effect,
    phase: op.phase,
    attempt: op.attempt,
    maxAttempts: op.maxAttempts,
    approvedAttempt: op.approvedAttempt,
    approvalExpiresAt: op.approvalExpiresAt,
    approvals: op.approvals,
    decision: op.decision,
    runId: op.runId,
    agentId: op.agentId,
    via: op.via,
    lastError: op.lastError,
    createdAt: op.createdAt,
    updatedAt: op.updatedAt,
  };
}

export interface OperationPage {
  items: OperationRow[];
  nextCursor: string | null;
}
