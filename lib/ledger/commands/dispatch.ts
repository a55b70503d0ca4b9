// Dispatch: the gate decides; if the operation may run now it is DISPATCHED (through AUTHORIZED) and durable before the
// worker calls the provider.
import type { Ledger } from "@/lib/ledger/ledger";
import { breakerAllowsDispatch } from "@/lib/retry-gate/breaker";
import { decide, retryCountedWhenScheduled } from "@/lib/retry-gate/decide";
import { approvalExpired } from "@/lib/retry-gate/approval-expiry";
import { nextPhase, type PhaseMove } from "@/lib/retry-gate/phase-events";
import type { Decision, GateInput, Phase } from "@/lib/retry-gate/types";
import { traceOf, type Actor } from "../actor";
import { callTraceId } from "@/lib/platform/telemetry/call-trace-id";
import { approvalRequest } from "./authority";
import { recordOnBreaker } from "@/lib/ledger/dependencies/breakers";
import { LedgerError, type LedgerErrorCode } from "../errors";
import { newId } from "../ids";
import { checkFence, operationCommand, writeOperation, type OperationContext, type Tx } from "./run-command";
import { gateInput, operationView, type OperationView, type WouldHave } from "@/lib/ledger/reads/operation-view";
import { runBudget } from "@/lib/ledger/runs/run-budget";
import { allowanceOf, markExhausted, spendRetry } from "@/lib/ledger/runs/run-spend";
import type { RunAllowance } from "@/lib/platform/generated/prisma/client";

/** Why a decision does not let the operation go now, as the API's machine code. */
export function refusalCode(
  decision: Decision,
  input: GateInput,
  attempt: number,
  maxAttempts: number,
): LedgerErrorCode | null {
  const phase = input.operation.phase;
  switch (decision.action) {
    case "DISPATCH":
    case "RETRY":
    case "RETRY_SAME_KEY":
      return decision.retryAfterMs !== undefined && decision.retryAfterMs > 0 ? "retry_not_due" : null;
    case "APPROVAL":
      return attempt >= maxAttempts && phase !== "AWAITING_APPROVAL" ? "budget_spent" : "approval_required";
    case "RECONCILE":
      return "reconcile_required";
    case "UNAVAILABLE":
      return "breaker_open";
    case "WAIT":
      return "in_flight";
    case "STOP":
      return approvalExpired(input.operation, input.now) ? "approval_expired" : "already_finished";
    default: {
      const unreachable: never = decision.action;
      return unreachable;
    }
  }
}

/**
 * Observe mode (the contract's `mode: "observe"`) lets a call's only attempt go where enforcing would have held it
 * for a person or failed it fast on an open breaker, and records that instead. Everything after the first attempt is
 * enforced: the gateway makes no retries in observe mode, so none are observed.
 */
function observedRefusal(ctx: OperationContext, code: LedgerErrorCode): boolean {
  return (
    ctx.contract.mode === "observe" && ctx.op.attempt === 0 && (code === "approval_required" || code === "breaker_open")
  );
}

/**
 * A refusal that needs a person moves the operation to where people look, as the gate answers the refused dispatch:
 * the approvals queue, or the unknowns queue when a waiting retry can no longer be trusted to converge (its key
 * retention ran out).
 */
async function routeToPeople(
  tx: Tx,
  ctx: OperationContext,
  move: PhaseMove,
  decision: Decision,
  actor: Actor,
  now: Date,
): Promise<void> {
  const { op } = ctx;
  if (move.to === move.from) return;
  await writeOperation(tx, op, approvalRequest(move.to, ctx.contract, now), now, move);
  await tx.appendAudit([
    {
      subjectType: "operation",
      subjectId: op.id,
      actor,
      action: move.to === "AWAITING_APPROVAL" ? "operation.approval_requested" : "operation.outcome_unknown",
      fromPhase: move.from,
      toPhase: move.to,
      reason: decision.reason,
      at: now,
    },
  ]);
}

/**
 * A retry the run's allowance refuses as it is about to leave (past the run's deadline, or beyond its retries when it was
 * not counted when scheduled) ends the operation: FAILED, audited with the gate's sentence, the allowance exhausted.
 */
async function failOnRun(
  tx: Tx,
  ctx: OperationContext,
  move: PhaseMove,
  allowance: RunAllowance,
  decision: Decision,
  actor: Actor,
  now: Date,
): Promise<void> {
  const { op } = ctx;
  await writeOperation(tx, op, { notBefore: null }, now, move);
  await tx.appendAudit([
    {
      subjectType: "operation",
      subjectId: op.id,
      actor,
      action: "operation.failed",
      fromPhase: move.from,
      toPhase: move.to,
      reason: decision.reason,
      data: { attempt: op.attempt, runAllowance: decision.runAllowance },
      at: now,
    },
  ]);
  await markExhausted(tx, allowance, decision, op, actor, now);
}

/**
 * The backoff this attempt waited: the part of the gap since the previous attempt that the gate prescribed (up to its
 * `notBefore`). The rest of the gap (the agent's own delay, a person's approval) is not backoff, so "is the agent slow
 * because of backoff?" is answered by the gate's doing alone.
 */
function backoffWaited(previousFinishedAt: Date | null, notBefore: Date | null, now: Date): number {
  if (!previousFinishedAt || !notBefore) return 0;
  const until = Math.min(now.getTime(), notBefore.getTime());
  return Math.max(0, until - previousFinishedAt.getTime());
}

/**
 * The gate's answer: the operation as dispatched, or why it may not go now. A refusal may have moved the operation
 * to where people look (routeToPeople), so it is a returned value: the transaction commits it, and the caller
 * answers it (the API as a 409 problem document).
 */
export type DispatchResult = { operation: OperationView } | { refused: LedgerError };

export async function dispatchOperation(
  ledger: Ledger,
  id: string,
  input: { fence: number },
  actor: Actor,
  now: Date,
): Promise<DispatchResult> {
  return operationCommand(ledger, id, actor, "dispatch", now, dispatchStep(input, actor, now));
}

/**
 * The dispatch itself, inside a transaction the caller runs: dispatchOperation's, or one that composes it with the
 * plan (lib/ledger/commands/gateway-call.ts).
 */
export function dispatchStep(
  input: { fence: number },
  actor: Actor,
  now: Date,
): (tx: Tx, ctx: OperationContext) => Promise<DispatchResult> {
  return async (tx, ctx): Promise<DispatchResult> => {
    const { op, contract, dependency } = ctx;
    const id = op.id;
    checkFence(op, input.fence, now, true);
    // A retry is asked of the run's allowance again as it leaves; a first attempt spends none of it.
    const allowance = op.attempt > 0 ? await allowanceOf(tx, op) : null;
    const input0 = gateInput(op, contract, dependency, now, allowance === null ? null : runBudget(allowance));
    const decision = decide(input0);
    const code = refusalCode(decision, input0, op.attempt, contract.maxAttempts);
    const observed = code !== null && observedRefusal(ctx, code);
    if (code !== null && !observed) {
      // The gate's decision says where the refused operation waits: a person's queue, FAILED by the run's allowance.
      const held = nextPhase(op.phase as Phase, { type: "dispatch_refused", decision });
      if (allowance !== null && decision.runAllowance) await failOnRun(tx, ctx, held, allowance, decision, actor, now);
      else await routeToPeople(tx, ctx, held, decision, actor, now);
      return { refused: new LedgerError(code, decision.reason, { decision, operationId: id }) };
    }
    // A retry no failure scheduled (a PURE operation's unknown outcome, a reconciliation, a person's approval) is
    // counted now.
    if (allowance !== null && !retryCountedWhenScheduled(input0.operation)) await spendRetry(tx, allowance, 0, now);
    const attempt = op.attempt + 1;
    const previous = ctx.attempt;
    const backoffMs = backoffWaited(previous?.finishedAt ?? null, op.notBefore, now);
    const allowed = input0.breaker ? breakerAllowsDispatch(input0.breaker, input0.breakerConfig, now.getTime()) : null;
    const breakerAfter =
      allowed?.allowed && allowed.probe
        ? await recordOnBreaker(tx, dependency, { type: "probe" }, actor, now, `attempt ${op.attempt + 1} of ${id}`)
        : dependency;
    const move = nextPhase(op.phase as Phase, { type: "dispatched" });
    const dispatched = await writeOperation(
      tx,
      op,
      // Evidence was about the previous attempt; the new one starts unproven (the reconciliation stays in evidenceJson
      // and the audit).
      {
        attempt,
        evidence: "none",
        notBefore: null,
        firstDispatchedAt: op.firstDispatchedAt ?? now,
        ...(observed && op.wouldHave === null
          ? { wouldHave: JSON.stringify({ code, reason: decision.reason } satisfies WouldHave) }
          : {}),
      },
      now,
      move,
    );
    await tx.insertAttempt({
      id: newId(),
      operationId: id,
      number: attempt,
      workerId: op.leaseOwner ?? actor.label,
      fence: op.fence,
      result: "in_flight",
      errorKind: null,
      httpStatus: null,
      errorMessage: null,
      backoffMs,
      providerId: null,
      resultJson: null,
      traceId: callTraceId(traceOf(actor)),
      dispatchedAt: now,
      finishedAt: null,
    });
    const approved = op.approvedAttempt === attempt;
    await tx.appendAudit([
      {
        subjectType: "operation",
        subjectId: id,
        actor,
        action: "operation.authorized",
        fromPhase: move.from,
        toPhase: move.through,
        reason: decision.reason,
        data: { attempt, approved },
        at: now,
      },
      {
        subjectType: "operation",
        subjectId: id,
        actor,
        action: "operation.dispatched",
        fromPhase: move.through,
        toPhase: move.to,
        reason: `attempt ${attempt} of ${contract.maxAttempts} left with key ${op.idempotencyKey}`,
        data: { attempt, fence: op.fence, workerId: op.leaseOwner, backoffMs },
        at: now,
      },
    ]);
    return { operation: operationView(dispatched, contract, breakerAfter, now) };
  };
}
