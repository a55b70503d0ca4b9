// The recovery sweep: an operation whose lease expired while DISPATCHED becomes UNKNOWN, done by the system.
import type { Db } from "@/lib/db";
import { SYSTEM_ACTOR } from "./actor";
import { auditRecord } from "./audit";
import { recordOnBreaker } from "./breakers";
import { WriteConflict } from "./transaction";

const BATCH = 100;

/** Returns how many operations this call moved; safe to run from several servers at once. */
export async function recoverExpiredLeases(client: Db, now: Date): Promise<number> {
  const expired = await client.operation.findMany({
    where: { phase: "DISPATCHED", leaseExpiresAt: { lt: now } },
    select: { id: true, version: true, fence: true, attempt: true, leaseOwner: true, leaseExpiresAt: true, tool: true, contractVersion: true },
    orderBy: { leaseExpiresAt: "asc" },
    take: BATCH,
  });
  let recovered = 0;
  for (const op of expired) {
    try {
      await client.$transaction(async (tx) => {
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
        await tx.auditEvent.createMany({
          data: [
            auditRecord({
              subjectType: "operation",
              subjectId: op.id,
              actor: SYSTEM_ACTOR,
              action: "operation.outcome_unknown",
              fromPhase: "DISPATCHED",
              toPhase: "UNKNOWN",
              reason: `the lease of ${op.leaseOwner ?? "the worker"} expired at ${op.leaseExpiresAt?.toISOString()} while attempt ${op.attempt} was in flight; the request may have left, so only evidence may move it on`,
              data: { attempt: op.attempt, fencedOut: op.fence, newFence: op.fence + 1 },
              at: now,
            }),
          ],
        });
        // A lost answer counts against the dependency, and frees a half-open breaker's probe slot.
        const contract = await tx.contractVersion.findUnique({ where: { tool_version: { tool: op.tool, version: op.contractVersion } } });
        const dependency = contract?.dependency ? await tx.dependency.findUnique({ where: { name: contract.dependency } }) : null;
        await recordOnBreaker(tx, dependency, { type: "failure" }, SYSTEM_ACTOR, now, `the expired lease on ${op.id}`);
      });
      recovered++;
    } catch (error) {
      if (!(error instanceof WriteConflict)) throw error;
    }
  }
  return recovered;
}
