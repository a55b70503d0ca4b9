// Plans an operation before anything leaves: idempotent on (tool, idempotency key), args compared by canonical hash.
import type { Ledger } from "@/lib/ledger/ledger";
import type { ContractVersion, Dependency, Operation } from "@/lib/platform/generated/prisma/client";
import { decide } from "@/lib/retry-gate/decide";
import { INITIAL_PHASE } from "@/lib/retry-gate/phases";
import { principalId, traceOf, type Actor } from "../actor";
import { callTraceId } from "@/lib/platform/telemetry/call-trace-id";
import { holdForApproval } from "./authority";
import type { AuditInput } from "@/lib/ledger/audit/append";
import { canonicalJson, sha256 } from "../canonical-json";
import { LedgerError } from "../errors";
import { newId, newIdempotencyKey } from "../ids";
import { claimLease, leaseClaimAudit } from "./lease";
import { commandSpan, spanArguments } from "./command-span";
import { LEDGER } from "@/lib/platform/telemetry/attributes";
import { answerDelivered, repeatKey } from "./repeated-call";
import { loadContext } from "../reads/operation-context";
import { gateInput, operationView, type OperationView, type WouldHave } from "@/lib/ledger/reads/operation-view";
import { isUniqueViolation, type LedgerReads, type LedgerTx } from "@/lib/ledger/store/types";
import { withWriteRetry } from "../write-retry";
import type { PlanInput as WirePlanInput } from "@/lib/platform/wire/requests";

/** What the plan command takes: the API's body (lib/platform/wire/requests.ts), and what only the server sets. */
export interface PlanInput extends WirePlanInput {
  /** How the call arrived, when not over the HTTP API: "mcp" for the MCP gateway. */
  via?: "mcp";
  /** Observe mode: what enforcing would have done with this call, as found before planning it (observe.ts). */
  wouldHave?: WouldHave;
  /** A replay with edited arguments: the operation it replays (set by the replay command only, never by a client). */
  replayOf?: string;
  /**
   * An MCP call under the gateway's default key: the call within its run, instead of an idempotency key. The call is
   * its latest operation while that one's final answer was not delivered; after that, a new operation under the next
   * key, `repeatOf` the latest (repeated-call.ts).
   */
  callKey?: string;
}

export interface PlanResult {
  operation: OperationView;
  created: boolean;
}

/** The tool's current contract version and its dependency's breaker. */
async function currentContract(
  store: LedgerReads,
  tool: string,
): Promise<{ contract: ContractVersion; dependency: Dependency | null }> {
  const head = await store.contractHead(tool);
  const contract = head ? await store.contractVersion(tool, head.version) : null;
  if (!head || !contract) {
    throw new LedgerError(
      "no_contract",
      `There is no contract for the tool ${tool}; a tool without a contract is never dispatched.`,
    );
  }
  return { contract, dependency: head.dependency };
}

/**
 * The answer to a replayed plan: the same operation (claimed, when the replay asks for the lease, exactly as a separate
 * claim would).
 */
async function existingPlan(
  ledger: Ledger,
  existing: Operation,
  input: PlanInput,
  argsHash: string,
  actor: Actor,
  now: Date,
): Promise<PlanResult> {
  if (actor.type === "api_key" && existing.plannedByKeyId !== actor.id) {
    // Another key's operation: the key is taken, and nothing of that operation is shown
    // (docs/authority.md#own-operations).
    throw new LedgerError(
      "idempotency_key_reused",
      `The idempotency key ${existing.idempotencyKey} of ${existing.tool} is already used by another agent key; ` +
        "a new call needs a new key.",
    );
  }
  if (existing.argsHash !== argsHash) {
    await ledger.store.transaction((tx) =>
      tx.appendAudit([
        {
          subjectType: "operation",
          subjectId: existing.id,
          actor,
          action: "operation.duplicate_rejected",
          reason: `idempotency key ${existing.idempotencyKey} was reused with different args`,
          data: { argsHash },
          at: now,
        },
      ]),
    );
    throw new LedgerError(
      "idempotency_key_reused",
      `The idempotency key ${existing.idempotencyKey} already belongs to operation ${existing.id} of ${existing.tool} ` +
        "with different args; a new call needs a new key.",
      { operationId: existing.id },
    );
  }
  if (input.claim)
    return { operation: (await claimLease(ledger, existing.id, input.claim, actor, now)).operation, created: false };
  const ctx = await loadContext(ledger.store, existing.id);
  return { operation: operationView(ctx.op, ctx.contract, ctx.dependency, now), created: false };
}

/** A new operation's key and the call it repeats; or the existing operation a call under the default key still is. */
async function keyOf(
  tx: LedgerReads,
  input: PlanInput,
): Promise<{ existing: Operation } | { idempotencyKey?: string; repeatOf?: string }> {
  if (input.callKey === undefined) {
    const existing = input.idempotencyKey ? await tx.operationByKey(input.tool, input.idempotencyKey) : null;
    return existing ? { existing } : input.idempotencyKey ? { idempotencyKey: input.idempotencyKey } : {};
  }
  const latest = await tx.latestOfCall(input.tool, input.callKey);
  if (!latest) return { idempotencyKey: input.callKey };
  if (!answerDelivered(latest)) return { existing: latest };
  return { idempotencyKey: repeatKey(input.callKey, latest.idempotencyKey), repeatOf: latest.id };
}

/** The operation a call is now (its key's, or for the default key its call's while not answered); null: a new one. */
export async function callOperation(reads: LedgerReads, input: PlanInput): Promise<Operation | null> {
  const key = await keyOf(reads, input);
  if ("existing" in key) return key.existing;
  return input.callKey !== undefined && key.idempotencyKey !== undefined
    ? reads.operationByKey(input.tool, key.idempotencyKey)
    : null;
}

/** A new operation as planned, before it is written: its row, its audit records, its contract and breaker. */
export interface PlanDraft {
  draft: Operation;
  audit: AuditInput[];
  contract: ContractVersion;
  dependency: Dependency | null;
}

/**
 * Plans in one transaction of the store, in which `write` writes the new operation: planOperation's insert, or a
 * command composed with the plan (lib/ledger/commands/gateway-call.ts). A call that is an existing operation is answered
 * as a replayed plan (claimed, when asked), after that transaction, and so is a plan that lost the race for its key.
 * The plan runs inside its span (command-span.ts).
 */
export function planWith<T>(
  ledger: Ledger,
  input: PlanInput,
  actor: Actor,
  now: Date,
  write: (tx: LedgerTx, plan: PlanDraft) => Promise<T>,
): Promise<{ created: T } | { replayed: PlanResult }> {
  return commandSpan("plan", actor, (span) => {
    if (span.isRecording()) span.setAttribute(LEDGER.tool, input.tool);
    return planInTransaction(ledger, input, actor, now, (tx, plan) => {
      spanArguments(span, plan.contract, plan.draft.argsJson);
      return write(tx, plan);
    });
  });
}

async function planInTransaction<T>(
  ledger: Ledger,
  input: PlanInput,
  actor: Actor,
  now: Date,
  write: (tx: LedgerTx, plan: PlanDraft) => Promise<T>,
): Promise<{ created: T } | { replayed: PlanResult }> {
  const store = ledger.store;
  const argsJson = canonicalJson(input.args);
  const argsHash = sha256(argsJson);
  /** The key the last try inserted under: a unique violation means another request planned it first. */
  let inserted: string | undefined;
  try {
    const planned = await withWriteRetry(() =>
      store.transaction(async (tx): Promise<{ existing: Operation } | { created: T }> => {
        const { contract, dependency } = await currentContract(tx, input.tool);
        if (contract.idempotencyKey === "required" && !input.idempotencyKey && !input.callKey) {
          throw new LedgerError(
            "idempotency_key_required",
            `The contract of ${input.tool} requires an idempotency key; send one that stays the same for every attempt of this call.`,
          );
        }
        const key = await keyOf(tx, input);
        if ("existing" in key) return key;
        inserted = key.idempotencyKey;
        const { draft, audit } = draftOf(
          { ...input, ...key },
          contract,
          dependency,
          { argsJson, argsHash },
          actor,
          now,
        );
        return { created: await write(tx, { draft, audit, contract, dependency }) };
      }),
    );
    if ("created" in planned) return planned;
    return { replayed: await existingPlan(ledger, planned.existing, input, argsHash, actor, now) };
  } catch (error) {
    if (!isUniqueViolation(error) || !inserted) throw error;
    // A concurrent request planned the same (tool, key) first: answer as its replay.
    const winner = await store.operationByKey(input.tool, inserted);
    if (!winner) throw error;
    return { replayed: await existingPlan(ledger, winner, input, argsHash, actor, now) };
  }
}

export async function planOperation(ledger: Ledger, input: PlanInput, actor: Actor, now: Date): Promise<PlanResult> {
  const planned = await planWith(ledger, input, actor, now, async (tx, { draft, audit, contract, dependency }) => {
    await tx.insertOperation(draft);
    await tx.appendAudit(audit);
    return operationView(draft, contract, dependency, now);
  });
  return "created" in planned ? { operation: planned.created, created: true } : planned.replayed;
}

/** Where every new operation starts: planned, nothing sent, no lease, no evidence, no person's decision yet. */
export function newOperationState(now: Date) {
  return {
    phase: INITIAL_PHASE,
    attempt: 0,
    evidence: "none",
    evidenceJson: null,
    providerId: null,
    approvedAttempt: null,
    approvalExpiresAt: null,
    approvers: null,
    rejectionReason: null,
    lastError: null,
    firstDispatchedAt: null,
    notBefore: null,
    leaseOwner: null,
    leaseExpiresAt: null,
    callKey: null,
    repeatOf: null,
    deliveredAt: null,
    fence: 0,
    version: 0,
    createdAt: now,
    updatedAt: now,
  } satisfies Partial<Operation>;
}

/**
 * The new operation's row and its audit records: planned, sent for approval if its contract says so, claimed if asked.
 */
function draftOf(
  input: PlanInput & { repeatOf?: string },
  contract: ContractVersion,
  dependency: Dependency | null,
  args: { argsJson: string; argsHash: string },
  actor: Actor,
  now: Date,
): { draft: Operation; audit: AuditInput[] } {
  const draft: Operation = {
    id: newId(),
    tool: input.tool,
    contractVersion: contract.version,
    effect: contract.effect,
    idempotencyKey: input.idempotencyKey ?? newIdempotencyKey(),
    ...args,
    runId: input.runId ?? null,
    agentId: input.agentId ?? null,
    plannedByKeyId: actor.type === "api_key" ? actor.id : null,
    via: input.via ?? null,
    wouldHave: input.wouldHave ? JSON.stringify(input.wouldHave) : null,
    replayOf: input.replayOf ?? null,
    ...newOperationState(now),
    callKey: input.callKey ?? null,
    repeatOf: input.repeatOf ?? null,
    approvalRequestedBy: principalId(actor),
    traceId: callTraceId(traceOf(actor)),
  };
  const first = decide(gateInput(draft, contract, dependency, now));
  const audit: AuditInput[] = [
    {
      subjectType: "operation",
      subjectId: draft.id,
      actor,
      action: "operation.planned",
      toPhase: INITIAL_PHASE,
      reason: first.reason,
      at: now,
    },
  ];
  if (first.action === "APPROVAL" && contract.mode === "observe") {
    // Observe mode records the hold it would have made and lets the call go.
    draft.wouldHave ??= JSON.stringify({ code: "approval_required", reason: first.reason } satisfies WouldHave);
  } else if (first.action === "APPROVAL") {
    audit.push(holdForApproval(draft, contract, actor, first.reason, now));
  }
  if (input.claim) {
    const fence = draft.fence + 1;
    audit.push(leaseClaimAudit(draft, input.claim, fence, actor, now));
    draft.fence = fence;
    draft.leaseOwner = input.claim.workerId;
    draft.leaseExpiresAt = new Date(now.getTime() + input.claim.leaseMs);
  }
  return { draft, audit };
}
