// The answer to a call whose operation already exists and cannot run now (or whose upstream is down): the kept result
// of a confirmed call (not executed again), or why nothing was forwarded.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { KeyActor } from "@/lib/platform/auth/api-keys";
import type { Operation } from "@/lib/platform/generated/prisma/client";
import { LedgerError } from "@/lib/ledger/errors";
import type { Ledger } from "@/lib/ledger/ledger";
import { loadContext } from "@/lib/ledger/reads/operation-context";
import { operationView } from "@/lib/ledger/reads/operation-view";
import { decisionInRun } from "@/lib/ledger/runs/run-decision";
import { assertNever } from "@/lib/retry-gate/exhaustive";
import { letsAttemptGo, type Phase } from "@/lib/retry-gate/types";
import { refusalResult, type GatewayRefusal } from "./model-answer";

/** The confirmed answer as the upstream gave it, marked as served from the ledger. */
export function replayedResult(resultJson: string, operationId: string): CallToolResult {
  const result = JSON.parse(resultJson) as CallToolResult;
  return { ...result, _meta: { ...result._meta, "opledger/operation": operationId, "opledger/replayed": true } };
}

/** Why a call waits for a person: a repeat of an answered call held as a suspected duplicate, or any other hold. */
export function heldFor(op: Pick<Operation, "id" | "repeatOf" | "attempt">): Pick<GatewayRefusal, "code" | "repeatOf"> {
  return op.repeatOf !== null && op.attempt === 0
    ? { code: "suspected_duplicate", repeatOf: op.repeatOf }
    : { code: "approval_required" };
}

export async function answerFromState(
  ledger: Ledger,
  actor: KeyActor,
  tool: string,
  operationId: string,
  now: Date,
  /** Why the upstream cannot be reached now, when it cannot: an operation that could run is told so. */
  upstreamDown?: string,
): Promise<CallToolResult> {
  const { op, contract, dependency, attempt } = await loadContext(ledger.store, operationId);
  // planOperation refuses another key's operation before this is asked; the same sentence as a missing one otherwise.
  if (op.plannedByKeyId !== actor.id) {
    throw new LedgerError("not_found", `There is no operation of ${tool} with this call's key.`);
  }
  // A confirmed answer is replayed as it is; any other state answers with the run's allowance in the decision (an
  // operation the allowance ended says so, not the failed phase's general sentence).
  const view = operationView(op, contract, dependency, now);
  const decision =
    op.phase === "CONFIRMED" ? view.decision : await decisionInRun(ledger, op, contract, dependency, now);
  const base = { tool, operationId: op.id, decision };
  if (upstreamDown !== undefined && letsAttemptGo(decision.action)) {
    return refusalResult({ ...base, code: "upstream_unavailable", detail: upstreamDown });
  }
  const phase = op.phase as Phase;
  let refusal: GatewayRefusal;
  switch (phase) {
    case "CONFIRMED":
      if (attempt?.resultJson) return replayedResult(attempt.resultJson, op.id);
      refusal = { ...base, code: "result_not_kept" };
      break;
    case "RECONCILED":
      refusal =
        op.evidence === "applied"
          ? { ...base, code: "already_applied" }
          : { ...base, code: decision.action === "APPROVAL" ? "approval_required" : "in_flight" };
      break;
    case "UNKNOWN":
      refusal = { ...base, code: "outcome_unknown" };
      break;
    case "AWAITING_APPROVAL":
      refusal = { ...base, ...heldFor(op) };
      break;
    case "FAILED":
      refusal = {
        ...base,
        code: "failed",
        ...(view.lastError?.message ? { detail: `The last error: ${view.lastError.message}` } : {}),
      };
      break;
    case "REJECTED":
      refusal = {
        ...base,
        code: "rejected",
        ...(op.rejectionReason ? { detail: `Reason: ${op.rejectionReason}` } : {}),
      };
      break;
    case "EXPIRED":
      refusal = { ...base, code: "approval_expired" };
      break;
    case "PLANNED":
    case "AUTHORIZED":
    case "DISPATCHED":
    case "RETRY_SCHEDULED":
      // Another request holds its lease (the same call made twice at once).
      refusal = { ...base, code: "in_flight" };
      break;
    default:
      return assertNever(phase, "phase");
  }
  return refusalResult(refusal);
}
