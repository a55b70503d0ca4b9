// Approval expiry: an operation that waited for a person longer than its contract's approvalTtlMs becomes EXPIRED,
// done by opledger itself. Never approved by default, never left waiting forever
// (docs/authority.md#approvals-are-bound-and-expire).
import type { Ledger } from "@/lib/ledger/ledger";
import type { Operation } from "@/lib/platform/generated/prisma/client";
import type { Actor } from "../actor";
import { isWriteConflict } from "../store/types";
import { decide } from "@/lib/retry-gate/decide";
import { nextPhase } from "@/lib/retry-gate/phase-events";
import type { Phase } from "@/lib/retry-gate/types";
import { gateInput } from "@/lib/ledger/reads/operation-view";
import { loadContext } from "../reads/operation-context";
import { approversOf } from "./authority";
import { writeOperation, type Tx } from "./run-command";
import { touchedOperation } from "@/lib/platform/telemetry/root-span";
import { commandSpan, spanOperationBefore } from "./command-span";

const BATCH = 100;

export const EXPIRY_ACTOR: Actor = { type: "system", id: "system", label: "approval expiry" };

async function expire(tx: Tx, op: Operation, now: Date): Promise<Operation> {
  const context = await loadContext(tx, op.id);
  // The gate already says STOP past the deadline: its sentence is the one the agent is told, so the audit keeps it.
  const { reason } = decide(gateInput(op, context.contract, context.dependency, now));
  const move = nextPhase(op.phase as Phase, { type: "expired" });
  const clear = { approvers: null, notBefore: null, leaseOwner: null, leaseExpiresAt: null };
  const expired = await writeOperation(tx, op, clear, now, move);
  await tx.appendAudit([
    {
      subjectType: "operation",
      subjectId: op.id,
      actor: EXPIRY_ACTOR,
      action: "operation.approval_expired",
      fromPhase: move.from,
      toPhase: move.to,
      reason,
      data: { attempt: op.attempt, approvalsGiven: approversOf(op).length },
      at: now,
    },
  ]);
  return expired;
}

/**
 * Returns how many approval requests this call expired; safe from several servers at once, exactly like the lease
 * sweep (a write conditional on the version read: an approval given at that moment wins, or the expiry does). Each
 * expiry is the command span `opledger expire_approval`, opened once a row is found, inside the sweep's root span.
 */
export async function expireApprovals(ledger: Ledger, now: Date): Promise<number> {
  let expired = 0;
  for (let step = 0; step < BATCH; step++) {
    let found: string | null = null;
    try {
      await ledger.store.transaction(async (tx) => {
        const op = await tx.oldestExpiredApproval(now);
        if (!op) return;
        found = op.id;
        await commandSpan("expire_approval", EXPIRY_ACTOR, (span) => {
          spanOperationBefore(span, op);
          return expire(tx, op, now);
        });
      });
    } catch (error) {
      if (!isWriteConflict(error)) throw error;
      continue;
    }
    if (!found) break;
    touchedOperation(found);
    expired++;
  }
  return expired;
}
