// Observe mode's plan: a call whose key an earlier call already holds is recorded as a new operation (observe mode
// forwards everything), with what enforcing would have done because of the earlier one.
import type { Ledger } from "@/lib/ledger/ledger";
import { decide } from "@/lib/retry-gate/decide";
import type { Actor } from "../actor";
import { canonicalJson, sha256 } from "../canonical-json";
import { newId } from "../ids";
import { loadContext } from "../reads/operation-context";
import { gateInput, type WouldHave } from "../reads/operation-view";
import { refusalCode } from "./dispatch";
import type { PlanInput } from "./plan";

/** What enforcing would have answered a call with the key of `earlierId`; null when it would have sent it too. */
async function verdictOf(ledger: Ledger, earlierId: string, argsHash: string, now: Date): Promise<WouldHave | null> {
  const { op, contract, dependency } = await loadContext(ledger.store, earlierId);
  if (op.argsHash !== argsHash) {
    return {
      code: "idempotency_key_reused",
      reason: `the key belongs to operation ${op.id} with other arguments, so the call would have been refused`,
      operationId: op.id,
    };
  }
  if (op.phase === "CONFIRMED") {
    return {
      code: "replayed",
      reason: `operation ${op.id} was confirmed, so the call would have been answered with its kept result, not sent`,
      operationId: op.id,
    };
  }
  const input = gateInput(op, contract, dependency, now);
  const decision = decide(input);
  const code = refusalCode(decision, input, op.attempt, contract.maxAttempts);
  return code === null ? null : { code, reason: decision.reason, operationId: op.id };
}

/** The plan input for an observed call: as given when its key is free, else under a new key with the verdict. */
export async function observedPlanInput(
  ledger: Ledger,
  input: PlanInput & { idempotencyKey: string },
  actor: Actor,
  now: Date,
): Promise<PlanInput> {
  const earlier = await ledger.store.operationByKey(input.tool, input.idempotencyKey);
  if (!earlier) return input;
  const ownedByOther = actor.type === "api_key" && earlier.plannedByKeyId !== actor.id;
  const wouldHave: WouldHave | null = ownedByOther
    ? { code: "idempotency_key_reused", reason: "another agent key already used this call's key" }
    : await verdictOf(ledger, earlier.id, sha256(canonicalJson(input.args)), now);
  return {
    ...input,
    idempotencyKey: `${input.idempotencyKey}~${newId()}`,
    ...(wouldHave ? { wouldHave } : {}),
  };
}
