// The run lease: claim (or take over an expired one) with a monotonic fencing token, and heartbeat to extend it.
import type { Ledger } from "@/lib/ledger/ledger";
import type { Operation } from "@/lib/platform/generated/prisma/client";
import { isTerminal } from "@/lib/retry-gate/phases";
import type { Phase } from "@/lib/retry-gate/types";
import type { Actor } from "../actor";
import type { AuditInput } from "@/lib/ledger/audit/append";
import { LedgerError } from "../errors";
import { checkFence, operationCommand, writeOperation } from "./run-command";
import { recoverLostDispatch } from "./sweep";
import { operationView, type OperationView } from "@/lib/ledger/reads/operation-view";
import type * as wire from "@/lib/platform/wire/answers";

export const LEASE_MS_MIN = 100;
export const LEASE_MS_MAX = 3_600_000;

export type LeaseView = wire.Lease;

/** The audit record of a claim: a first claim, a renewed one, or the takeover of an expired lease. */
export function leaseClaimAudit(
  before: Pick<Operation, "id" | "leaseOwner" | "fence">,
  input: { workerId: string; leaseMs: number },
  fence: number,
  actor: Actor,
  now: Date,
): AuditInput {
  const takeover = before.leaseOwner !== null && before.leaseOwner !== input.workerId;
  return {
    subjectType: "operation",
    subjectId: before.id,
    actor,
    action: takeover ? "operation.lease_taken_over" : "operation.lease_claimed",
    reason: takeover
      ? `${input.workerId} took over the expired lease of ${before.leaseOwner} (fence ${before.fence} -> ${fence})`
      : `${input.workerId} claimed the lease (fence ${fence})`,
    data: { workerId: input.workerId, fence, previousOwner: before.leaseOwner, leaseMs: input.leaseMs },
    at: now,
  };
}

export async function claimLease(
  ledger: Ledger,
  id: string,
  input: { workerId: string; leaseMs: number },
  actor: Actor,
  now: Date,
): Promise<LeaseView> {
  return operationCommand(ledger, id, actor, "claim", now, async (tx, context) => {
    const { op: read, contract } = context;
    // Each refusal names the operation, so a caller that planned by key knows which one answered it.
    const operationId = { operationId: id };
    if (read.phase === "EXPIRED") {
      throw new LedgerError(
        "approval_expired",
        `Operation ${id} waited for a person longer than its contract allows and expired; nothing was sent. A person can replay it.`,
        operationId,
      );
    }
    if (isTerminal(read.phase as Phase)) {
      throw new LedgerError(
        "already_finished",
        `Operation ${id} is ${read.phase}; there is nothing left to run.`,
        operationId,
      );
    }
    const live = read.leaseExpiresAt !== null && read.leaseExpiresAt.getTime() > now.getTime();
    if (live && read.leaseOwner !== input.workerId) {
      throw new LedgerError(
        "lease_held",
        `Operation ${id} is leased by ${read.leaseOwner} until ${read.leaseExpiresAt?.toISOString()}; try again after that.`,
        operationId,
      );
    }
    const fence = read.fence + 1;
    const leaseExpiresAt = new Date(now.getTime() + input.leaseMs);
    const lease = { leaseOwner: input.workerId, leaseExpiresAt };
    // An attempt whose lease ran out in flight is UNKNOWN (docs/api.md#recovery), whether the sweep or this claim gets
    // there first: a fresh lease must not keep it DISPATCHED while its caller keeps claiming. The sweep's step fences
    // the old holder out, so the claim that follows it is a first claim, not a take-over.
    const lost = !live && read.phase === "DISPATCHED";
    const { op: updated, dependency } = lost
      ? await recoverLostDispatch(tx, read, context.dependency, now, lease)
      : { op: await writeOperation(tx, read, { fence, ...lease }, now), dependency: context.dependency };
    await tx.appendAudit([leaseClaimAudit(lost ? { ...read, leaseOwner: null } : read, input, fence, actor, now)]);
    return {
      fence,
      leaseExpiresAt: leaseExpiresAt.toISOString(),
      operation: operationView(updated, contract, dependency, now),
    };
  });
}

/**
 * The holder's fence is current and something is left to run: a finished operation has no lease left to extend or
 * release, and a late heartbeat must not make it look taken.
 */
function checkLeaseLeft(op: Operation, fence: number, now: Date, verb: "extend" | "release"): void {
  checkFence(op, fence, now, false);
  if (isTerminal(op.phase as Phase)) {
    throw new LedgerError("already_finished", `Operation ${op.id} is ${op.phase}; there is no lease left to ${verb}.`);
  }
}

export async function heartbeatLease(
  ledger: Ledger,
  id: string,
  input: { fence: number; leaseMs: number },
  actor: Actor,
  now: Date,
): Promise<LeaseView> {
  return operationCommand(ledger, id, actor, "heartbeat", now, async (tx, { op, contract, dependency }) => {
    // An expired lease that nobody took over may still be extended: the fence proves it is the same holder.
    checkLeaseLeft(op, input.fence, now, "extend");
    // No lease is held: a reconciliation ended the attempt the lease was taken for (fence + 1, lease cleared), so a
    // caller who read the new fence still holds nothing to extend. What happens next starts with a claim, and a lease
    // claimed after the reconciliation is extended like any other.
    if (op.leaseOwner === null) {
      throw new LedgerError("lease_expired", `Operation ${id} holds no lease; claim it to run what comes next.`);
    }
    const leaseExpiresAt = new Date(now.getTime() + input.leaseMs);
    const updated = await writeOperation(tx, op, { leaseExpiresAt }, now);
    return {
      fence: op.fence,
      leaseExpiresAt: leaseExpiresAt.toISOString(),
      operation: operationView(updated, contract, dependency, now),
    };
  });
}

/**
 * A holder that stops waiting gives its lease up (fence + 1, audited), so the next claim is granted at once: the MCP
 * gateway's call that answers "waiting for a person", or "try again later". Refused while an attempt is in flight
 * (its outcome comes first) and on a finished operation; a stale fence is refused as for any other write.
 */
export async function releaseLease(
  ledger: Ledger,
  id: string,
  input: { fence: number },
  actor: Actor,
  now: Date,
): Promise<OperationView> {
  return operationCommand(ledger, id, actor, "release", now, async (tx, { op, contract, dependency }) => {
    checkLeaseLeft(op, input.fence, now, "release");
    if (op.phase === "DISPATCHED") {
      throw new LedgerError(
        "in_flight",
        `Attempt ${op.attempt} of ${id} is in flight; report its outcome before releasing the lease.`,
      );
    }
    const fence = op.fence + 1;
    const updated = await writeOperation(tx, op, { fence, leaseOwner: null, leaseExpiresAt: null }, now);
    const audit: AuditInput = {
      subjectType: "operation",
      subjectId: id,
      actor,
      action: "operation.lease_released",
      reason: `${op.leaseOwner ?? "the holder"} released the lease (fence ${op.fence} -> ${fence}) while the operation is ${op.phase}`,
      data: { workerId: op.leaseOwner, fence, previousFence: op.fence },
      at: now,
    };
    await tx.appendAudit([audit]);
    return operationView(updated, contract, dependency, now);
  });
}
