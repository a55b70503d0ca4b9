// Outcome of a dispatched attempt: confirmed, unknown, or failed with a classified error the gate turns into the next
// step.
import type { Ledger } from "@/lib/ledger/ledger";
import type { RunAllowance } from "@/lib/platform/generated/prisma/client";
import type { BreakerEvent } from "@/lib/retry-gate/breaker";
import { classifyError } from "@/lib/retry-gate/classify-error";
import { judgeReport } from "@/lib/retry-gate/error-rules";
import { errorRulesOf } from "@/lib/ledger/contracts/contract-view";
import { decideAfterFailure } from "@/lib/retry-gate/decide";
import { nextPhase, type PhaseMove } from "@/lib/retry-gate/phase-events";
import type {
  ClassifiedError,
  Decision,
  EffectClass,
  Phase,
  ReportedError,
  ToolErrorMeaning,
} from "@/lib/retry-gate/types";
import type { Actor } from "../actor";
import { approvalRequest } from "./authority";
import { recordOnBreaker } from "@/lib/ledger/dependencies/breakers";
import { LedgerError } from "../errors";
import { deliveredWith } from "./repeated-call";
import { checkFence, operationCommand, writeOperation, type OperationChanges } from "./run-command";
import { gateInput, operationView, type OperationView } from "@/lib/ledger/reads/operation-view";
import { runBudget } from "@/lib/ledger/runs/run-budget";
import { allowanceOf, markExhausted, spendRetry } from "@/lib/ledger/runs/run-spend";

export type OutcomeResult = "confirmed" | "failed" | "unknown";

export interface OutcomeInput {
  fence: number;
  result: OutcomeResult;
  providerId?: string;
  error?: ReportedError;
  /** The upstream's confirmed answer as JSON (MCP gateway, already capped): kept to answer the same call again. */
  resultJson?: string;
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

/** " (timeout: socket hang up)": the kind and message a worker reported, or nothing. */
function reportedAs(error: ClassifiedError | null): string {
  if (!error) return "";
  return ` (${error.kind}${error.message ? `: ${error.message}` : ""})`;
}

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
          `Attempt ${op.attempt} of ${id} was already reported confirmed as ${attemptRow.providerId ?? "(no provider id)"}; ` +
            `a report naming ${input.providerId ?? "no provider id"} is refused, as no attempt is in flight.`,
        );
      }
      throw new LedgerError(
        "not_dispatched",
        `Operation ${id} is ${op.phase}, not DISPATCHED: there is no attempt in flight to report on.`,
      );
    }
    let data: OperationChanges;
    let move: PhaseMove;
    let reason: string;
    // A failure spends the run's allowance on the retry the gate schedules, or exhausts it when the gate refuses one.
    let run: { row: RunAllowance; backoffMs: number | null; stopped: Decision | null } | null = null;
    switch (result) {
      case "confirmed":
        move = nextPhase(op.phase, { type: "confirmed" });
        data = { providerId: input.providerId ?? null, notBefore: null };
        reason = `attempt ${op.attempt} confirmed by the provider${input.providerId ? ` as ${input.providerId}` : ""}`;
        break;
      case "unknown":
        move = nextPhase(op.phase, { type: "outcome_unknown" });
        data = { lastError: error ? JSON.stringify(error) : null };
        reason =
          `the outcome of attempt ${op.attempt} is unknown${reportedAs(error)}${error?.rule ? ` by ${error.rule}` : ""}; ` +
          "the effect may have happened";
        break;
      case "failed": {
        const failed = error ?? classifyError({});
        const withError = { ...op, lastError: JSON.stringify(failed) };
        const allowance = await allowanceOf(tx, op);
        const budget = allowance === null ? null : runBudget(allowance);
        const next = decideAfterFailure(gateInput(withError, contract, dependency, now, budget), failed, random);
        move = nextPhase(op.phase, { type: "failed", step: next });
        data = {
          lastError: JSON.stringify(failed),
          notBefore: next.notBefore === null ? null : new Date(next.notBefore),
          ...approvalRequest(move.to, contract, now),
        };
        reason = next.decision.reason;
        if (allowance !== null) {
          run = {
            row: allowance,
            backoffMs: next.notBefore === null ? null : next.notBefore - now.getTime(),
            stopped: next.decision.runAllowance ? next.decision : null,
          };
        }
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
      { ...data, ...deliveredWith(op, move.to, input.delivered, now) },
      now,
      move,
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
        action: AUDIT_ACTION[move.to],
        fromPhase: move.from,
        toPhase: move.to,
        reason,
        data: {
          attempt: op.attempt,
          result,
          error,
          providerId: input.providerId ?? null,
          ...(run?.stopped ? { runAllowance: run.stopped.runAllowance } : {}),
        },
        at: now,
      },
    ]);
    if (run?.stopped) await markExhausted(tx, run.row, run.stopped, op, actor, now);
    else if (run !== null && move.to === "RETRY_SCHEDULED") await spendRetry(tx, run.row, run.backoffMs ?? 0, now);
    const breakerAfter = await recordOnBreaker(
      tx,
      dependency,
      breakerEvent(result, error),
      actor,
      now,
      `attempt ${op.attempt} of ${id}`,
    );
    const view = operationView(updated, contract, breakerAfter, now);
    // The failed phase's general sentence would hide the bound that refused the retry.
    return run?.stopped ? { ...view, decision: run.stopped } : view;
  });
}
