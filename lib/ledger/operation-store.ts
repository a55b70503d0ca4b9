// Loads an operation with its contract version and breaker, and writes it back only if nobody changed it meanwhile.
import type { Db } from "@/lib/db";
import type { ContractVersion, Dependency, Operation, Prisma } from "@/lib/generated/prisma/client";
import { assertTransition } from "@/lib/retry-gate/phases";
import type { Phase } from "@/lib/retry-gate/types";
import type { Actor } from "./actor";
import { appendAudit } from "./audit";
import { LedgerError } from "./errors";
import { WriteConflict, withWriteRetry } from "./transaction";

export type Tx = Prisma.TransactionClient;

export interface OperationContext {
  op: Operation;
  contract: ContractVersion;
  dependency: Dependency | null;
}

/** Contract versions never change once written (an edit is a new version), so each client keeps the ones it has read. */
const contractVersions = new WeakMap<Db, Map<string, ContractVersion>>();
/** A bound, not a policy: far above the number of contract versions a deployment uses. */
const MAX_CACHED_VERSIONS = 10_000;

/** One version of a tool's contract, from `owner`'s cache when it has read it before. */
export async function findContractVersion(tx: Tx | Db, owner: Db | undefined, tool: string, version: number): Promise<ContractVersion | null> {
  const cache = owner ? (contractVersions.get(owner) ?? contractVersions.set(owner, new Map()).get(owner)) : undefined;
  const key = `${version}@${tool}`;
  const cached = cache?.get(key);
  if (cached) return cached;
  const row = await tx.contractVersion.findUnique({ where: { tool_version: { tool, version } } });
  if (row && cache) {
    if (cache.size >= MAX_CACHED_VERSIONS) cache.clear();
    cache.set(key, row);
  }
  return row;
}

/** Loads an operation, its contract version and its dependency's breaker; `cacheOwner` is the client whose cache of contract versions may answer. */
export async function loadContext(tx: Tx | Db, id: string, cacheOwner?: Db): Promise<OperationContext> {
  const op = await tx.operation.findUnique({ where: { id } });
  if (!op) throw new LedgerError("not_found", `There is no operation ${id}.`);
  const contract = await findContractVersion(tx, cacheOwner, op.tool, op.contractVersion);
  if (!contract) throw new Error(`Operation ${id} refers to a missing contract version ${op.tool}@${op.contractVersion}.`);
  const dependency = contract.dependency
    ? await tx.dependency.findUnique({ where: { name: contract.dependency } })
    : null;
  return { op, contract, dependency };
}

/** The fields a command may change: plain values, so the written row is known without reading it back. */
export type OperationChanges = Partial<Omit<Operation, "id" | "tool" | "version" | "createdAt" | "updatedAt">>;

/** Writes the operation if its row version is still the one we read; a phase change (optionally through an intermediate phase) must be legal. */
export async function writeOperation(tx: Tx, op: Operation, changes: OperationChanges, now: Date, through?: Phase): Promise<Operation> {
  if (typeof changes.phase === "string" && changes.phase !== op.phase) {
    if (through) {
      assertTransition(op.phase as Phase, through);
      assertTransition(through, changes.phase as Phase);
    } else {
      assertTransition(op.phase as Phase, changes.phase as Phase);
    }
  }
  // Prisma skips undefined fields; so does the row we return.
  const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as OperationChanges;
  const written = { ...defined, version: op.version + 1, updatedAt: now };
  const result = await tx.operation.updateMany({ where: { id: op.id, version: op.version }, data: written });
  if (result.count !== 1) throw new WriteConflict(`operation ${op.id} changed meanwhile`);
  // The conditional update matched the version we read, so the row is exactly what we read plus what we wrote.
  return { ...op, ...written };
}

/**
 * Runs one command on one operation in one transaction, retried on write conflicts. A stale fence is
 * refused with nothing changed, and the refusal itself is audited (in its own transaction, since the
 * command's transaction rolls back).
 */
export async function operationCommand<T>(
  client: Db,
  id: string,
  actor: Actor,
  command: string,
  now: Date,
  work: (tx: Tx, ctx: OperationContext) => Promise<T>,
): Promise<T> {
  try {
    return await withWriteRetry(() => client.$transaction(async (tx) => work(tx, await loadContext(tx, id, client))));
  } catch (error) {
    if (error instanceof LedgerError && error.code === "stale_fence") {
      await client.$transaction((tx) =>
        appendAudit(tx, [
          { subjectType: "operation", subjectId: id, actor, action: "operation.stale_fence_rejected", reason: error.message, data: { command }, at: now },
        ]),
      );
    }
    throw error;
  }
}

/** Refuses a write from a worker whose lease was taken over (older fence) or whose lease ran out. */
export function checkFence(op: Operation, fence: number, now: Date, requireLiveLease: boolean): void {
  if (fence !== op.fence) {
    throw new LedgerError(
      "stale_fence",
      `Fence ${fence} is stale: the lease on ${op.id} is now held with fence ${op.fence}${op.leaseOwner ? ` by ${op.leaseOwner}` : ""}.`,
    );
  }
  if (requireLiveLease && (!op.leaseExpiresAt || op.leaseExpiresAt.getTime() <= now.getTime())) {
    throw new LedgerError("lease_expired", `The lease with fence ${fence} on ${op.id} has expired; claim it again.`);
  }
}

/** What a person saw when they decided: the fields a human decision depends on (not the lease, which workers move). */
export interface SeenState {
  phase: string;
  attempt: number;
  approvedAttempt: number | null;
  evidence: string;
}

/** Refuses, inside the command's transaction, a decision taken on a state that has moved on since the person looked. */
export function checkSeen(op: Operation, seen: SeenState | undefined): void {
  if (!seen) return;
  if (op.phase !== seen.phase || op.attempt !== seen.attempt || op.approvedAttempt !== seen.approvedAttempt || op.evidence !== seen.evidence) {
    throw new LedgerError(
      "write_conflict",
      `Operation ${op.id} changed since it was shown (now ${op.phase}, attempt ${op.attempt}); look again before deciding.`,
      { operationId: op.id },
    );
  }
}
