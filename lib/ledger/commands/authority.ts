// Who may move which operation (docs/authority.md), checked inside every command: agent keys drive only the operations
// they planned, only a person opens the human gate, and the four-eyes rule and quorum compare principal ids.
import type { ContractVersion, Operation } from "@/lib/platform/generated/prisma/client";
import { approvalExpiresAt } from "@/lib/retry-gate/approval-expiry";
import { nextPhase } from "@/lib/retry-gate/phase-events";
import type { Phase } from "@/lib/retry-gate/types";
import { personOf, principalId, type Actor, type Person } from "../actor";
import type { AuditInput } from "../audit/append";
import { LedgerError } from "../errors";

/**
 * The agent's lane (claim, heartbeat, dispatch, outcome) and the shared one (reconcile, reject, approve), where a key
 * with the operator or admin scope acts as its person (or, for the bootstrap key, as an administrator). An agent key
 * asking for a person's decision on its own operation learns it needs a person; on another's, nothing.
 */
export type Lane = "agent" | "shared";

const SEES_ALL_SCOPES = ["operator", "admin"];

/** Persons and keys with the operator or admin scope see every operation; an agent key sees only its own. */
export function seesAllOperations(actor: Actor): boolean {
  if (actor.type !== "api_key") return true;
  return actor.scopes.some((scope) => SEES_ALL_SCOPES.includes(scope));
}

/** The key an agent key's reads are limited to, or null when the actor sees every operation. */
export function ownerFilter(actor: Actor): string | null {
  return seesAllOperations(actor) ? null : (actor as Extract<Actor, { type: "api_key" }>).id;
}

function notFound(id: string): LedgerError {
  return new LedgerError("not_found", `There is no operation ${id}.`);
}

/**
 * Refuses, as if the operation did not exist, a key acting on another key's operation: in the agent's lane a key
 * drives only what it planned, whatever its other scopes; in the shared lane an operator or admin scope may act on any.
 */
export function checkLane(op: Operation, actor: Actor, lane: Lane): void {
  if (actor.type !== "api_key") return;
  if (lane === "shared" && seesAllOperations(actor)) return;
  if (op.plannedByKeyId !== actor.id) throw notFound(op.id);
}

/** The human gate: only a person with the operator role (directly or through a key bound to them) passes. */
export function requirePerson(actor: Actor, what: string): Person {
  const person = personOf(actor);
  if (!person || person.role === "viewer") {
    throw new LedgerError(
      "person_required",
      `${what} is a person's decision: only a person with the operator role (or a key bound to one) may make it.`,
    );
  }
  return person;
}

/** The principal ids of the persons who approved the pending request so far. */
export function approversOf(op: Pick<Operation, "approvers">): string[] {
  return op.approvers ? op.approvers.split(",").filter(Boolean) : [];
}

/** The person each API key is bound to, by key id (null for a key with none, or no longer stored): see key-owners.ts. */
export type KeyOwners = ReadonlyMap<string, string | null>;

/**
 * Every principal tied to an operation's pending approval, none of whom may give it
 * (docs/authority.md#four-eyes-and-quorum): whoever asked at plan or replay (`approvalRequestedBy`: the planning key's
 * principal, or the replaying person), and the key that planned it, which is the only key that runs its attempts and so
 * the one whose failures ask again, with the person that key is bound to. A planning key missing from `owners` was
 * handed over after they were read: the caller read a state that is gone, and is told to look again.
 */
export function tiedPrincipals(
  op: Pick<Operation, "id" | "approvalRequestedBy" | "plannedByKeyId">,
  owners: KeyOwners,
): Set<string> {
  const tied = new Set<string>();
  if (op.approvalRequestedBy !== null) tied.add(op.approvalRequestedBy);
  if (op.plannedByKeyId !== null) {
    if (!owners.has(op.plannedByKeyId)) {
      throw new LedgerError("write_conflict", `Operation ${op.id} changed hands meanwhile; look at it again.`);
    }
    tied.add(`api_key:${op.plannedByKeyId}`);
    const owner = owners.get(op.plannedByKeyId);
    if (owner) tied.add(`user:${owner}`);
  }
  return tied;
}

/**
 * The four-eyes rule and the quorum's distinct persons, by principal id: nobody tied to the operation approves it
 * (tiedPrincipals), and nobody approves twice.
 */
export function checkApprover(op: Operation, actor: Actor, fourEyes: boolean, owners: KeyOwners): string {
  const principal = principalId(actor);
  if (fourEyes && tiedPrincipals(op, owners).has(principal)) {
    throw new LedgerError(
      "four_eyes",
      `You are tied to ${op.id}: it runs under a key bound to you, or you (or your key) asked for this approval; ` +
        "another person must approve.",
    );
  }
  if (approversOf(op).includes(principal)) {
    throw new LedgerError(
      "already_approved",
      `You already approved ${op.id}; the quorum needs another person's approval.`,
    );
  }
  return principal;
}

/**
 * The fields an operation gets when it starts waiting for a person: when the request expires, and no approvals yet.
 * Empty for any other phase, so callers can spread it whatever the gate decided. Who may not approve is derived from
 * the operation itself (tiedPrincipals), whichever attempt asked.
 */
export function approvalRequest(
  phase: string,
  contract: Pick<ContractVersion, "approvalTtlMs">,
  now: Date,
): Partial<Pick<Operation, "approvalExpiresAt" | "approvers">> {
  if (phase !== "AWAITING_APPROVAL") return {};
  return {
    approvalExpiresAt: new Date(approvalExpiresAt(now.getTime(), contract)),
    approvers: null,
  };
}

/**
 * A new operation held for a person before its first attempt (a plan the gate sent to approval, a replay that needs a
 * second person): AWAITING_APPROVAL with the request's fields, and the audit record that says why.
 */
export function holdForApproval(
  draft: Operation,
  contract: Pick<ContractVersion, "approvalTtlMs">,
  actor: Actor,
  reason: string,
  now: Date,
): AuditInput {
  const move = nextPhase(draft.phase as Phase, { type: "approval_requested" });
  Object.assign(draft, { phase: move.to }, approvalRequest(move.to, contract, now));
  return {
    subjectType: "operation",
    subjectId: draft.id,
    actor,
    action: "operation.approval_requested",
    fromPhase: move.from,
    toPhase: move.to,
    reason,
    at: now,
  };
}
