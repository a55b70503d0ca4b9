// Replay with edited arguments: a person plans a NEW operation (a new key, `replayOf` the original) from one that is
// over, in one transaction with the audit records of both; it goes through the gate like any other call.
import type { ContractVersion, Dependency, Operation } from "@/lib/platform/generated/prisma/client";
import type { Ledger } from "@/lib/ledger/ledger";
import type { AuditInput } from "@/lib/ledger/audit/append";
import { decide } from "@/lib/retry-gate/decide";
import { INITIAL_PHASE } from "@/lib/retry-gate/phases";
import { canReplay, replayNeedsApproval } from "@/lib/retry-gate/replay";
import type { EffectClass, EffectEvidence, Phase } from "@/lib/retry-gate/types";
import { principalId, traceOf, type Actor } from "../actor";
import { callTraceId } from "@/lib/platform/telemetry/call-trace-id";
import { canonicalJson, sha256 } from "../canonical-json";
import { LedgerError } from "../errors";
import { newId } from "../ids";
import { loadContext } from "../reads/operation-context";
import { gateInput, operationView, type OperationView } from "../reads/operation-view";
import { isUniqueViolation, type LedgerTx } from "../store/types";
import { withWriteRetry } from "../write-retry";
import { checkLane, holdForApproval, requirePerson } from "./authority";
import { newOperationState } from "./plan";

/** As large as a plan's whole request body may be (docs/api.md#conventions: 256 KiB). */
export const MAX_REPLAY_ARGS_BYTES = 256 * 1024;

export interface ReplayInput {
  /** The edited arguments; the original's when absent. */
  args?: unknown;
  reason: string;
}

/**
 * A replay's idempotency key: new for every replay, and the same for the nth replay of one operation, so that two
 * people replaying the same operation at once collide on the (tool, key) index instead of both sending the effect.
 */
export function replayKey(originalId: string, n: number): string {
  return `opk_${originalId}_replay${n}`;
}

/** The arguments a replay may carry: a JSON object (a tool call's arguments), no larger than a plan's body. */
function replayArgs(original: Operation, args: unknown): { argsJson: string; argsHash: string } {
  if (args === undefined) return { argsJson: original.argsJson, argsHash: original.argsHash };
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    throw new LedgerError("invalid_args", "The arguments of a replay must be a JSON object, as a tool call's are.", {
      errors: { args: ["must be a JSON object"] },
    });
  }
  const argsJson = canonicalJson(args);
  if (Buffer.byteLength(argsJson, "utf8") > MAX_REPLAY_ARGS_BYTES) {
    throw new LedgerError("invalid_args", `The arguments are larger than ${MAX_REPLAY_ARGS_BYTES} bytes.`, {
      errors: { args: [`at most ${MAX_REPLAY_ARGS_BYTES} bytes`] },
    });
  }
  return { argsJson, argsHash: sha256(argsJson) };
}

/**
 * The next free replay number of `original`, refusing while an earlier replay is still live (it may still run: a
 * second one could do the effect twice). Read through the transaction, so a replay earlier in the same commit counts.
 */
async function nextReplayNumber(tx: LedgerTx, original: Operation): Promise<number> {
  for (let n = 1; ; n++) {
    const earlier = await tx.operationByKey(original.tool, replayKey(original.id, n));
    if (!earlier) return n;
    if (earlier.replayOf === original.id && !canReplay(earlier.phase as Phase, earlier.evidence as EffectEvidence)) {
      throw new LedgerError(
        "replay_pending",
        `Operation ${original.id} already has a replay, ${earlier.id}, that is ${earlier.phase}; ` +
          "reject it or let it finish before replaying again.",
        { operationId: earlier.id },
      );
    }
  }
}

async function currentContract(
  tx: LedgerTx,
  tool: string,
): Promise<{ contract: ContractVersion; dependency: Dependency | null }> {
  const head = await tx.contractHead(tool);
  const contract = head ? await tx.contractVersion(tool, head.version) : null;
  if (!head || !contract) {
    throw new LedgerError("no_contract", `There is no contract for the tool ${tool} any more; it cannot be replayed.`);
  }
  return { contract, dependency: head.dependency };
}

/**
 * The replay's row: under the tool's current contract, owned by the key that planned the original (so that agent's
 * workers claim and run it), asked for by the replaying person (so the four-eyes rule keeps them from approving it).
 */
function replayDraft(
  original: Operation,
  args: { argsJson: string; argsHash: string },
  n: number,
  contract: ContractVersion,
  actor: Actor,
  now: Date,
): Operation {
  return {
    ...original,
    ...args,
    id: newId(),
    contractVersion: contract.version,
    effect: contract.effect,
    idempotencyKey: replayKey(original.id, n),
    via: null,
    wouldHave: null,
    replayOf: original.id,
    ...newOperationState(now),
    approvalRequestedBy: principalId(actor),
    // The replay's own call, not the original's.
    traceId: callTraceId(traceOf(actor)),
  };
}

/**
 * Replays an operation that is over as a new operation. Only a person (or a key bound to one) may; an agent key gets
 * person_required on its own operations and not_found on others'. A NON_RETRYABLE replay waits for a second person.
 */
export async function replayOperation(
  ledger: Ledger,
  id: string,
  input: ReplayInput,
  actor: Actor,
  now: Date,
): Promise<OperationView> {
  const attempt = (): Promise<OperationView> =>
    withWriteRetry(() =>
      ledger.store.transaction(async (tx) => {
        const { op: original } = await loadContext(tx, id);
        checkLane(original, actor, "shared");
        requirePerson(actor, "Replaying an operation");
        if (!canReplay(original.phase as Phase, original.evidence as EffectEvidence)) {
          throw new LedgerError(
            "not_replayable",
            `Operation ${id} is ${original.phase}${original.phase === "RECONCILED" ? ` (${original.evidence})` : ""}; ` +
              "only a confirmed, failed, rejected, expired or reconciled-as-applied operation can be replayed.",
          );
        }
        const args = replayArgs(original, input.args);
        const n = await nextReplayNumber(tx, original);
        const { contract, dependency } = await currentContract(tx, original.tool);
        const draft = replayDraft(original, args, n, contract, actor, now);
        const first = decide(gateInput(draft, contract, dependency, now));
        const held = replayNeedsApproval(contract.effect as EffectClass) || first.action === "APPROVAL";
        const audit: AuditInput[] = [
          {
            subjectType: "operation",
            subjectId: draft.id,
            actor,
            action: "operation.planned",
            toPhase: INITIAL_PHASE,
            reason: input.reason,
            data: { replayOf: original.id, argsChanged: args.argsHash !== original.argsHash },
            at: now,
          },
        ];
        if (held) {
          const why =
            first.action === "APPROVAL"
              ? first.reason
              : `A replay of a ${contract.effect} call runs the tool again: a second person must approve it.`;
          audit.push(holdForApproval(draft, contract, actor, why, now));
        }
        audit.push({
          subjectType: "operation",
          subjectId: original.id,
          actor,
          action: "operation.replayed",
          reason: input.reason,
          data: { replay: draft.id, argsChanged: args.argsHash !== original.argsHash },
          at: now,
        });
        await tx.insertOperation(draft);
        await tx.appendAudit(audit);
        return operationView(draft, contract, dependency, now);
      }),
    );
  try {
    return await attempt();
  } catch (error) {
    // Someone replayed the same operation at the same moment and took this replay's key: answer as they left it.
    if (isUniqueViolation(error)) return attempt();
    throw error;
  }
}
