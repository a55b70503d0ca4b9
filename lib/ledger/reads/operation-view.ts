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
  Decision,
  EffectClass,
  EffectEvidence,
  GateInput,
  GateOperation,
  Phase,
} from "@/lib/retry-gate/types";
import { breakerConfigOf, breakerOf } from "@/lib/ledger/dependencies/breakers";
import { gateContract } from "@/lib/ledger/contracts/contract-view";

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

/** What enforcing a contract would have done with a call that observe mode let through. */
export interface WouldHave {
  /** The refusal's machine code (approval_required, breaker_open, reconcile_required, replayed...). */
  code: string;
  reason: string;
  /** The earlier operation with the same key, when enforcing would have answered from it. */
  operationId?: string;
}

export interface OperationView {
  id: string;
  tool: string;
  contractVersion: number;
  effect: EffectClass;
  idempotencyKey: string;
  args: unknown;
  runId: string | null;
  agentId: string | null;
  /** "mcp" when the call came through the MCP gateway; null over the HTTP API. */
  via: string | null;
  /** Observe mode: what enforcing the contract would have done with this call; null when it would have let it go. */
  wouldHave: WouldHave | null;
  /** A replay with edited arguments: the operation it replays (its page lists this one among its `replays`). */
  replayOf: string | null;
  /** MCP gateway: the same call made again after this earlier operation's answer was delivered (a new intent). */
  repeatOf: string | null;
  /** MCP gateway: when the call's final answer (its result, or its failure) was written to the client in full. */
  deliveredAt: string | null;
  /** The W3C trace id of the call that planned it (docs/observability.md); null when it came without a trace. */
  traceId: string | null;
  phase: Phase;
  attempt: number;
  maxAttempts: number;
  evidence: EffectEvidence;
  evidenceDetail: unknown;
  providerId: string | null;
  approvedAttempt: number | null;
  /** While waiting for a person: when the request expires (then EXPIRED), and the approvals given of those needed. */
  approvalExpiresAt: string | null;
  approvals: { given: number; needed: number };
  rejectionReason: string | null;
  lastError: ClassifiedError | null;
  notBefore: string | null;
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
  fence: number;
  createdAt: string;
  updatedAt: string;
  decision: Decision;
}

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

export interface AttemptView {
  number: number;
  workerId: string;
  fence: number;
  result: string;
  errorKind: string | null;
  httpStatus: number | null;
  errorMessage: string | null;
  backoffMs: number;
  providerId: string | null;
  /** The W3C trace id of the call that dispatched this attempt; null when it came without a trace. */
  traceId: string | null;
  dispatchedAt: string;
  finishedAt: string | null;
}

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

export interface AuditView {
  id: string;
  subjectType: string;
  subjectId: string;
  actorType: string;
  /** The principal's stable id (a user id, a key id, "system"); decisions and filters use it. */
  actorId: string;
  /** The user id of the person a key acted as. */
  onBehalfOf: string | null;
  /** What people read for the actor; null on records written before labels were kept (their actorId was the label). */
  actorLabel: string | null;
  action: string;
  fromPhase: string | null;
  toPhase: string | null;
  reason: string | null;
  data: unknown;
  createdAt: string;
}

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
