// The recovery sweep: an operation whose lease expired while DISPATCHED becomes UNKNOWN, done by the system.
import { engineOf, type Db } from "@/lib/db";
import { SYSTEM_ACTOR } from "./actor";
import { appendAudit } from "./audit";
import { recordOnBreaker } from "./breakers";
import { LedgerError } from "./errors";
import type { Tx } from "./operation-store";
import { WriteConflict } from "./transaction";

const BATCH = 100;

const EXPIRED_FIELDS = {
  id: true,
  version: true,
  fence: true,
  attempt: true,
  leaseOwner: true,
  leaseExpiresAt: true,
  tool: true,
  contractVersion: true,
} as const;

interface ExpiredOperation {
  id: string;
  version: number;
  fence: number;
  attempt: number;
  leaseOwner: string | null;
  leaseExpiresAt: Date | null;
  tool: string;
  contractVersion: number;
}

/** Moves one operation to UNKNOWN in the caller's transaction; throws WriteConflict if someone else moved it first. */
async function moveToUnknown(tx: Tx, op: ExpiredOperation, now: Date): Promise<void> {
  // Conditional on the version we read: if a worker reported meanwhile, or another sweep won, nothing is written.
  const moved = await tx.operation.updateMany({
    where: { id: op.id, version: op.version, phase: "DISPATCHED" },
    data: { phase: "UNKNOWN", fence: op.fence + 1, leaseOwner: null, leaseExpiresAt: null, version: op.version + 1, updatedAt: now },
  });
  if (moved.count !== 1) throw new WriteConflict("taken by someone else");
  await tx.attempt.updateMany({
    where: { operationId: op.id, number: op.attempt, result: "in_flight" },
    data: { result: "unknown", errorKind: "lease_expired", finishedAt: now },
  });
  await appendAudit(tx, [
    {
      subjectType: "operation",
      subjectId: op.id,
      actor: SYSTEM_ACTOR,
      action: "operation.outcome_unknown",
      fromPhase: "DISPATCHED",
      toPhase: "UNKNOWN",
      reason: `the lease of ${op.leaseOwner ?? "the worker"} expired at ${op.leaseExpiresAt?.toISOString()} while attempt ${op.attempt} was in flight; the request may have left, so only evidence may move it on`,
      data: { attempt: op.attempt, fencedOut: op.fence, newFence: op.fence + 1 },
      at: now,
    },
  ]);
  // A lost answer counts against the dependency, and frees a half-open breaker's probe slot.
  const contract = await tx.contractVersion.findUnique({ where: { tool_version: { tool: op.tool, version: op.contractVersion } } });
  const dependency = contract?.dependency ? await tx.dependency.findUnique({ where: { name: contract.dependency } }) : null;
  await recordOnBreaker(tx, dependency, { type: "failure" }, SYSTEM_ACTOR, now, `the expired lease on ${op.id}`);
}

/** Lost a race (the operation, or its dependency's breaker, changed meanwhile): leave the row for the next pass. */
function lostRace(error: unknown): boolean {
  return error instanceof WriteConflict || (error instanceof LedgerError && error.code === "write_conflict");
}

/**
 * SQLite: one writer at a time, so read a batch and move each row with a conditional update; a concurrent
 * sweep in another process loses the update and skips the row.
 */
async function recoverFromSnapshot(client: Db, now: Date): Promise<number> {
  const expired = await client.operation.findMany({
    where: { phase: "DISPATCHED", leaseExpiresAt: { lt: now } },
    select: EXPIRED_FIELDS,
    orderBy: { leaseExpiresAt: "asc" },
    take: BATCH,
  });
  let recovered = 0;
  for (const op of expired) {
    try {
      await client.$transaction((tx) => moveToUnknown(tx, op, now));
      recovered++;
    } catch (error) {
      if (!lostRace(error)) throw error;
    }
  }
  return recovered;
}

/**
 * PostgreSQL: each transaction claims the oldest expired row nobody else holds (FOR UPDATE SKIP LOCKED), so
 * sweeps on several instances share the rows instead of racing for the same ones; the conditional update stays
 * as the guard against a worker's report. A lost race rolls back and the row is offered again on the next claim.
 */
async function recoverByClaiming(client: Db, now: Date): Promise<number> {
  let recovered = 0;
  for (let claim = 0; claim < BATCH; claim++) {
    let found = false;
    try {
      await client.$transaction(async (tx) => {
        const [row] = await tx.$queryRaw<{ id: string }[]>`
          SELECT "id" FROM "Operation"
          WHERE "phase" = 'DISPATCHED' AND "leaseExpiresAt" < ${now}
          ORDER BY "leaseExpiresAt" LIMIT 1
          FOR UPDATE SKIP LOCKED`;
        if (!row) return;
        found = true;
        const op = await tx.operation.findUnique({ where: { id: row.id }, select: EXPIRED_FIELDS });
        if (!op) throw new WriteConflict("vanished");
        await moveToUnknown(tx, op, now);
      });
    } catch (error) {
      if (!lostRace(error)) throw error;
      continue;
    }
    if (!found) break;
    recovered++;
  }
  return recovered;
}

/** Returns how many operations this call moved; safe to run from several servers at once. */
export async function recoverExpiredLeases(client: Db, now: Date): Promise<number> {
  return engineOf(client) === "postgresql" ? recoverByClaiming(client, now) : recoverFromSnapshot(client, now);
}
