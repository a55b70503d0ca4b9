// The operation as the gate sees it and as the API answers it.
import type {
  Attempt,
  AuditEvent,
  ContractVersion,
  Dependency,
  Operation,
} from "@/lib/platform/generated/prisma/client";
import { decide } from "@/lib/retry-gate/decide";
import type { RunBudget } from "@/lib/retry-gate/run-allowance";
import type {
  ClassifiedError,
  EffectClass,
  EffectEvidence,
  GateInput,
  GateOperation,
  Phase,
} from "@/lib/retry-gate/types";
import { breakerConfigOf, breakerOf } from "@/lib/ledger/dependencies/breakers";
import { gateContract } from "@/lib/ledger/contracts/contract-view";
import type * as wire from "@/lib/platform/wire/answers";

export function gateOperation(op: Operation): GateOperation {
  return {
    phase: op.phase as Phase,
    attempt: op.attempt,
    evidence: op.evidence as EffectEvidence,
    approvedAttempt: op.approvedAttempt,
    firstDispatchedAt: op.firstDispatchedAt?.getTime() ?? null,
    notBefore: op.notBefore?.getTime() ?? null,
    lastError: op.lastError ? (JSON.parse(op.lastError) as ClassifiedError) : null,
    rejectionReason: op.rejectionReason,
    approvalExpiresAt: op.approvalExpiresAt?.getTime() ?? null,
    repeatOf: op.repeatOf,
  };
}

/** `run`: the allowance of the operation's run, when its key declared one (docs/run-allowance.md). */
export function gateInput(
  op: Operation,
  contract: ContractVersion,
  dependency: Dependency | null,
  now: Date,
  run: RunBudget | null = null,
): GateInput {
  return {
    operation: gateOperation(op),
    contract: gateContract(contract),
    run,
    breaker: dependency ? breakerOf(dependency) : null,
    breakerConfig: breakerConfigOf(dependency),
    now: now.getTime(),
  };
}

/** What enforcing a contract would have done with a call that observe mode let through (the API's wire type). */
export type WouldHave = wire.WouldHave;

/** The operation as the API answers it: the wire type (lib/platform/wire/answers.ts), which this module fills. */
export type OperationView = wire.Operation;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function operationView(
  op: Operation,
  contract: ContractVersion,
  dependency: Dependency | null,
  now: Date,
  run: RunBudget | null = null,
): OperationView {
  const input = gateInput(op, contract, dependency, now, run);
  return {
    id: op.id,
    tool: op.tool,
    contractVersion: op.contractVersion,
    effect: op.effect as EffectClass,
    idempotencyKey: op.idempotencyKey,
    args: JSON.parse(op.argsJson) as unknown,
    runId: op.runId,
    agentId: op.agentId,
    via: op.via,
    wouldHave: op.wouldHave ? (JSON.parse(op.wouldHave) as WouldHave) : null,
    replayOf: op.replayOf,
    repeatOf: op.repeatOf,
    deliveredAt: iso(op.deliveredAt),
    traceId: op.traceId,
    phase: input.operation.phase,
    attempt: op.attempt,
    maxAttempts: contract.maxAttempts,
    evidence: input.operation.evidence,
    evidenceDetail: op.evidenceJson ? (JSON.parse(op.evidenceJson) as unknown) : null,
    providerId: op.providerId,
    approvedAttempt: op.approvedAttempt,
    approvalExpiresAt: iso(op.approvalExpiresAt),
    approvals: { given: op.approvers ? op.approvers.split(",").length : 0, needed: contract.approvals },
    rejectionReason: op.rejectionReason,
    lastError: input.operation.lastError,
    notBefore: iso(op.notBefore),
    leaseOwner: op.leaseOwner,
    leaseExpiresAt: iso(op.leaseExpiresAt),
    fence: op.fence,
    createdAt: op.createdAt.toISOString(),
    updatedAt: op.updatedAt.toISOString(),
    decision: decide(input),
  };
}

export type AttemptView = wire.Attempt;

export function attemptView(a: Attempt): AttemptView {
  return {
    number: a.number,
    workerId: a.workerId,
    fence: a.fence,
    result: a.result,
    errorKind: a.errorKind,
    httpStatus: a.httpStatus,
    errorMessage: a.errorMessage,
    backoffMs: a.backoffMs,
    providerId: a.providerId,
    traceId: a.traceId,
    dispatchedAt: a.dispatchedAt.toISOString(),
    finishedAt: iso(a.finishedAt),
  };
}

export type AuditView = wire.AuditEvent;

export function auditView(e: AuditEvent): AuditView {
  return {
    id: e.id,
    subjectType: e.subjectType,
    subjectId: e.subjectId,
    actorType: e.actorType,
    actorId: e.actorId,
    onBehalfOf: e.onBehalfOf,
    actorLabel: e.actorLabel,
    action: e.action,
    fromPhase: e.fromPhase,
    toPhase: e.toPhase,
    reason: e.reason,
    data: e.data ? (JSON.parse(e.data) as unknown) : null,
    createdAt: e.createdAt.toISOString(),
  };
}
