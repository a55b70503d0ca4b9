// Outcome of a dispatched attempt: confirmed, unknown, or failed with a classified error the gate turns into the next
// step.
import type { Ledger } from "@/lib/ledger/ledger";
import type { Operation } from "@/lib/generated/prisma/client";
import type { BreakerEvent } from "@/lib/retry-gate/breaker";
import { classifyError } from "@/lib/retry-gate/classify-error";
import { judgeReport } from "@/lib/retry-gate/error-rules";
import type { RunBudget } from "@/lib/retry-gate/run-allowance";
import { errorRulesOf } from "@/lib/ledger/contracts/contract-view";
import { decideAfterFailure } from "@/lib/retry-gate/decide";
import type { ClassifiedError, EffectClass, Phase, ReportedError, ToolErrorMeaning } from "@/lib/retry-gate/types";
import type { Actor } from "../actor";
import { approvalRequest } from "./authority";
import { recordOnBreaker } from "@/lib/ledger/dependencies/breakers";
import { LedgerError } from "../errors";
import { deliveredWith } from "./repeated-call";
import { checkFence, operationCommand, writeOperation } from "./run-command";
import { gateInput, operationView, type OperationView } from "@/lib/ledger/reads/operation-view";

export type OutcomeResult = "confirmed" | "failed" | "unknown";

export interface OutcomeInput {
  fence: number;
  result: OutcomeResult;
  providerId?: string;
  error?: ReportedError;
  /** The upstream's confirmed answer as JSON (MCP gateway, already capped): kept to answer the same call again. */
  resultJson?: string;
  /** The allowance of the operation's run, as lib/ledger/runs/run-outcome.ts reserved it for this report. */
  run?: RunBudget;
  /** The answer goes to its client right after this commit: recorded as delivered in the same write (repeated-call.ts). */
  delivered?: boolean;
}

const AUDIT_ACTION: Record<Phase, string> = {
  PLANNED: "operation.planned",
  AUTHORIZED: "operation.authorized",
  DISPATCHED: "operation.dispatched",
  CONFIRMED: "operation.confirmed",
  UNKNOWN: "operation.outcome_unknown",
  RECONCILED: "operation.reconciled",
  RETRY_SCHEDULED: "operation.retry_scheduled",
  AWAITING_APPROVAL: "operation.approval_requested",
  FAILED: "operation.failed",
  REJECTED: "operation.rejected",
  EXPIRED: "operation.approval_expired",
};

function breakerEvent(result: OutcomeResult, error: ClassifiedError | null): BreakerEvent | null {
  if (result === "confirmed") return { type: "success" };
  // A definite 4xx says our request was wrong, not that the dependency is down.
  if (result === "failed" && error?.errorClass === "fatal") return null;
  return { type: "failure" };
}

export async function reportOutcome(
  ledger: Ledger,
  id: string,
  input: OutcomeInput,
  actor: Actor,
  now: Date,
  random: () => number = Math.random,
): Promise<OperationView> {
  return operationCommand(ledger, id, actor, "outcome", now, async (tx, ctx) => {
    const { op, contract, dependency, attempt: attemptRow } = ctx;
    checkFence(op, input.fence, now, false);
    const { result, error } = judgeReport(input.result, input.error, {
      tool: contract.tool,
      effect: contract.effect as EffectClass,
      toolError: (contract.toolError ?? "fatal") as ToolErrorMeaning,
      errorRules: errorRulesOf(contract),
    });
    if (op.phase !== "DISPATCHED" || !attemptRow || attemptRow.result !== "in_flight") {
      if (attemptRow && attemptRow.result === result && attemptRow.fence === input.fence) {
        // The same report sent again (the worker lost our answer): nothing new happens.
        if (result !== "confirmed" || (input.providerId ?? null) === attemptRow.providerId) {
          return operationView(op, contract, dependency, now);
        }
        throw new LedgerError(
          "not_dispatched",
          `Attempt ${op.attempt} of ${id} was already reported confirmed as ${attemptRow.providerId ?? "(no provider id)"}; a report naming ${input.providerId ?? "no provider id"} is refused, as no attempt is in flight.`,
        );
      }
      throw new LedgerError(
        "not_dispatched",
        `Operation ${id} is ${op.phase}, not DISPATCHED: there is no attempt in flight to report on.`,
      );
    }
    let data: Partial<Operation>;
    let reason: string;
    switch (result) {
      case "confirmed":
        data = { phase: "CONFIRMED", providerId: input.providerId ?? null, notBefore: null };
        reason = `attempt ${op.attempt} confirmed by the provider${input.providerId ? ` as ${input.providerId}` : ""}`;
        break;
      case "unknown":
        data = { phase: "UNKNOWN", lastError: error ? JSON.stringify(error) : null };
        reason = `the outcome of attempt ${op.attempt} is unknown${error ? ` (${error.kind}${error.message ? `: ${error.message}` : ""})` : ""}${error?.rule ? ` by ${error.rule}` : ""}; the effect may have happened`;
        break;
      case "failed": {
        const failed = error ?? classifyError({});
        const withError = { ...op, lastError: JSON.stringify(failed) };
        const gate = { ...gateInput(withError, contract, dependency, now), run: input.run ?? null };
        const next = decideAfterFailure(gate, failed, random);
        data = {
          phase: next.phase,
          lastError: JSON.stringify(failed),
          notBefore: next.notBefore === null ? null : new Date(next.notBefore),
          ...approvalRequest(next.phase, contract, now),
        };
        reason = next.decision.reason;
        break;
      }
      default: {
        const unreachable: never = result;
        throw new Error(`unknown result ${String(unreachable)}`);
      }
    }
    const updated = await writeOperation(
      tx,
      op,
      { ...data, ...deliveredWith(op, data.phase, input.delivered, now) },
      now,
    );
    await tx.updateAttempt(attemptRow.id, {
      result,
      errorKind: error?.kind ?? null,
      httpStatus: error?.httpStatus ?? null,
      errorMessage: error?.message?.slice(0, 2000) ?? null,
      providerId: input.providerId ?? null,
      resultJson: result === "confirmed" ? (input.resultJson ?? null) : null,
      finishedAt: now,
    });
    await tx.appendAudit([
      {
        subjectType: "operation",
        subjectId: id,
        actor,
        action: AUDIT_ACTION[updated.phase as Phase],
        fromPhase: op.phase,
        toPhase: updated.phase,
        reason,
        data: { attempt: op.attempt, result, error, providerId: input.providerId ?? null },
        at: now,
      },
    ]);
    const breakerAfter = await recordOnBreaker(
      tx,
      dependency,
      breakerEvent(result, error),
      actor,
      now,
      `attempt ${op.attempt} of ${id}`,
    );
    return operationView(updated, contract, breakerAfter, now);
  });
}
