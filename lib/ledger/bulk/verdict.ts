// What a bulk action would do to one operation, decided by the same rules the single actions use: which decisions a
// person may take in this phase (personActionsFor), the four-eyes rule and the quorum (checkApprover), an expired
// approval request (approvalExpired), and then what the gate would decide next (afterApproval / afterReconciliation,
// then decide). No rule of its own.
import type { ContractVersion, Operation } from "@/lib/platform/generated/prisma/client";
import { approvalExpired } from "@/lib/retry-gate/approval-expiry";
import { decide } from "@/lib/retry-gate/decide";
import { personActionsFor, type PersonAction } from "@/lib/retry-gate/person-actions";
import { afterApproval, afterReconciliation, grantsRetry } from "@/lib/retry-gate/person-decisions";
import type { DecisionAction, EffectEvidence, Phase } from "@/lib/retry-gate/types";
import type { Actor } from "../actor";
import { checkApprover, type KeyOwners } from "../commands/authority";
import { reconcileInputErrors } from "../commands/reconcile";
import { LedgerError } from "../errors";
import { gateInput, gateOperation } from "../reads/operation-view";
import type { BulkActionName, BulkPreviewRequest } from "./request";
import type { SkipReason } from "./skip-reasons";

/** The word a bulk item carries for what it will do. */
export type WillDo = "lookup" | "reconcile_applied" | "reconcile_not_applied" | "approve" | "reject";

export type Verdict =
  | {
      skip: false;
      willDo: WillDo;
      /** What the gate would decide right after (null for a lookup: it depends on the provider's answer). */
      then: DecisionAction | null;
    }
  | { skip: true; why: SkipReason };

const PERSON_ACTION: Record<BulkActionName, PersonAction> = {
  lookup_reconcile: "reconcile",
  reconcile: "reconcile",
  approve: "approve",
  reject: "reject",
};

export interface VerdictContext {
  request: BulkPreviewRequest;
  actor: Actor;
  now: Date;
  fourEyes: boolean;
  /** Tools whose current contract has a provider lookup. */
  lookupTools: ReadonlySet<string>;
  /** The persons behind the keys that planned the operations (the four-eyes rule's tied principals). */
  keyOwners: KeyOwners;
}

function approverSkip(op: Operation, ctx: VerdictContext): SkipReason | null {
  try {
    checkApprover(op, ctx.actor, ctx.fourEyes, ctx.keyOwners);
    return null;
  } catch (error) {
    if (error instanceof LedgerError && (error.code === "four_eyes" || error.code === "already_approved")) {
      return error.code;
    }
    throw error;
  }
}

function nextAction(op: Operation, changes: Partial<Operation>, contract: ContractVersion, now: Date): DecisionAction {
  return decide(gateInput({ ...op, ...changes }, contract, null, now)).action;
}

/** What `request` would do to `op` as `actor`, or why it would leave it alone. */
export function verdictFor(op: Operation, contract: ContractVersion, ctx: VerdictContext): Verdict {
  const { request, now } = ctx;
  if (!personActionsFor(op.phase as Phase, op.evidence as EffectEvidence).includes(PERSON_ACTION[request.action])) {
    return {
      skip: true,
      why: approvalExpired(gateOperation(op), now.getTime()) ? "approval_expired" : "already_decided",
    };
  }
  switch (request.action) {
    case "reject":
      return { skip: false, willDo: "reject", then: "STOP" };
    case "approve": {
      if (approvalExpired(gateOperation(op), now.getTime())) return { skip: true, why: "approval_expired" };
      const refused = approverSkip(op, ctx);
      if (refused) return { skip: true, why: refused };
      return { skip: false, willDo: "approve", then: nextAction(op, afterApproval(op), contract, now) };
    }
    case "lookup_reconcile":
      if (!ctx.lookupTools.has(op.tool)) return { skip: true, why: "no_lookup" };
      return { skip: false, willDo: "lookup", then: null };
    case "reconcile": {
      const reconciliation = {
        outcome: request.outcome ?? "not_applied",
        ...(request.approveRetry ? { approveRetry: true } : {}),
      };
      const providerId = request.providerId ?? op.providerId ?? undefined;
      if (reconcileInputErrors({ ...reconciliation, ...(providerId ? { providerId } : {}) }, ctx.actor)?.providerId) {
        return { skip: true, why: "provider_id_required" };
      }
      if (grantsRetry(reconciliation)) {
        const refused = approverSkip(op, ctx);
        if (refused) return { skip: true, why: refused };
      }
      const after = afterReconciliation(op, reconciliation);
      return {
        skip: false,
        willDo: reconciliation.outcome === "applied" ? "reconcile_applied" : "reconcile_not_applied",
        then: nextAction(op, after, contract, now),
      };
    }
  }
}

/**
 * Whether acting on this operation lets an attempt go that a person must answer for: an approval, or a reconciliation
 * that grants a retry. Over NON_RETRYABLE tools each one may make the effect happen again.
 */
export function grantsAttempt(request: BulkPreviewRequest): boolean {
  return (
    request.action === "approve" ||
    (request.action === "reconcile" &&
      grantsRetry({ outcome: request.outcome ?? "not_applied", approveRetry: request.approveRetry === true }))
  );
}
