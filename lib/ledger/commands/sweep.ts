// The recovery sweep: an operation whose lease expired while DISPATCHED becomes UNKNOWN, done by the system.
import type { Ledger } from "@/lib/ledger/ledger";
import type { Dependency, Operation } from "@/lib/platform/generated/prisma/client";
import { SYSTEM_ACTOR } from "../actor";
import { recordOnBreaker } from "@/lib/ledger/dependencies/breakers";
import { LedgerError } from "../errors";
import { writeOperation, type Tx } from "./run-command";
import { nextPhase } from "@/lib/retry-gate/phase-events";
import type { Phase } from "@/lib/retry-gate/types";

import { isWriteConflict } from "../store/types";
import { killPoint } from "@/lib/testing/kill-point";
import { touchedOperation } from "@/lib/platform/telemetry/root-span";
import { commandSpan, spanOperationBefore } from "./command-span";

const BATCH = 100;

/** Who holds the lease once a lost attempt is UNKNOWN: nobody after the sweep, the claimer after a claim. */
export type LeaseAfterLoss = Pick<Operation, "leaseOwner" | "leaseExpiresAt">;

/**
 * Moves a DISPATCHED operation whose lease ran out to UNKNOWN (fence + 1) in the caller's transaction, as the system:
 * the sweep's step, and a claim's when the claim comes before the sweep (then the claimer holds the new fence's lease,
 * written in the same statement). Throws WriteConflict if someone else moved it first. Returns the row and its
 * dependency as written.
 */
export async function recoverLostDispatch(
  tx: Tx,
  op: Operation,
  dependency: Dependency | null,
  now: Date,
  lease: LeaseAfterLoss = { leaseOwner: null, leaseExpiresAt: null },
): Promise<{ op: Operation; dependency: Dependency | null }> {
  // Conditional on the version we read: if a worker reported meanwhile, or another sweep won, nothing is written.
  const move = nextPhase(op.phase as Phase, { type: "lost_in_flight" });
  const moved = await writeOperation(tx, op, { fence: op.fence + 1, ...lease }, now, move);
  const attempt = await tx.attempt(op.id, op.attempt);
  if (attempt?.result === "in_flight")
    await tx.updateAttempt(attempt.id, { result: "unknown", errorKind: "lease_expired", finishedAt: now });
  await tx.appendAudit([
    {
      subjectType: "operation",
      subjectId: op.id,
      actor: SYSTEM_ACTOR,
      action: "operation.outcome_unknown",
      fromPhase: move.from,
      toPhase: move.to,
      reason:
        `the lease of ${op.leaseOwner ?? "the worker"} expired at ${op.leaseExpiresAt?.toISOString()} ` +
        `while attempt ${op.attempt} was in flight; the request may have left, so only evidence may move it on`,
      data: { attempt: op.attempt, fencedOut: op.fence, newFence: op.fence + 1 },
      at: now,
    },
  ]);
  // A lost answer counts against the dependency, and frees a half-open breaker's probe slot.
  const breaker = await recordOnBreaker(
    tx,
    dependency,
    { type: "failure" },
    SYSTEM_ACTOR,
    now,
    `the expired lease on ${op.id}`,
  );
  return { op: moved, dependency: breaker };
}

/** Lost a race (the operation, or its dependency's breaker, changed meanwhile): leave the row for the next pass. */
function lostRace(error: unknown): boolean {
  return isWriteConflict(error) || (error instanceof LedgerError && error.code === "write_conflict");
}

/**
 * Returns how many operations this call moved; safe to run from several servers at once. Each step takes the oldest
 * expired lease and moves it with a write conditional on the version it read: on SQLite the transaction holds the
 * write lock from its start; on PostgreSQL two sweeps may pick the same row, one wins and the other's write fails
 * and it moves on. The same condition guards against a worker reporting at that moment. Each move is the command
 * span `opledger lost_in_flight`, opened once a row is found (an idle pass opens none), inside the sweep's root span.
 */
export async function recoverExpiredLeases(ledger: Ledger, now: Date): Promise<number> {
  const store = ledger.store;
  let recovered = 0;
  for (let step = 0; step < BATCH; step++) {
    let found: string | null = null;
    try {
      await store.transaction(async (tx) => {
        const op = await tx.oldestExpiredLease(now);
        if (!op) return;
        found = op.id;
        await commandSpan("lost_in_flight", SYSTEM_ACTOR, async (span) => {
          spanOperationBefore(span, op);
          const contract = await tx.contractVersion(op.tool, op.contractVersion);
          const dependency = contract?.dependency ? await tx.dependency(contract.dependency) : null;
          const moved = await recoverLostDispatch(tx, op, dependency, now);
          killPoint("sweep_takeover", op.tool);
          return moved.op;
        });
      });
    } catch (error) {
      if (!lostRace(error)) throw error;
      continue;
    }
    if (!found) break;
    touchedOperation(found);
    recovered++;
  }
  return recovered;
}
