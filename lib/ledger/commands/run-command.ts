// Runs a command on one operation in one transaction of the ledger's store, and writes the operation back only if
// nobody changed it meanwhile.
import type { Ledger } from "@/lib/ledger/ledger";
import type { Operation } from "@/lib/platform/generated/prisma/client";
import type { PhaseMove } from "@/lib/retry-gate/phase-events";
import type { Actor } from "../actor";
import { LedgerError } from "../errors";
import { loadContext, type OperationContext } from "../reads/operation-context";
import { WriteConflict, type LedgerTx } from "../store/types";
import { withWriteRetry } from "../write-retry";
import { checkLane, type Lane } from "./authority";
import { commandSpan, spanOperationBefore } from "./command-span";

export type Tx = LedgerTx;
export type { OperationContext };

/**
 * The fields a command may change: plain values, so the written row is known without reading it back. Not the phase:
 * that is the gate's answer to an event (nextPhase, lib/retry-gate/phase-events.ts), which writeOperation takes apart.
 */
export type OperationChanges = Partial<
  Omit<Operation, "id" | "tool" | "phase" | "version" | "createdAt" | "updatedAt">
>;

/**
 * Writes the operation if its row version is still the one we read. Its phase changes only to what the gate answered
 * for an event on the phase we read (`move`); the changes themselves may not name a phase.
 */
export async function writeOperation(
  tx: Tx,
  op: Operation,
  changes: OperationChanges,
  now: Date,
  move?: PhaseMove,
): Promise<Operation> {
  if ("phase" in changes) throw new Error(`A command wrote the phase of ${op.id} itself; write the gate's answer.`);
  if (move !== undefined && move.from !== op.phase) {
    throw new Error(`The gate was asked about ${op.id} in ${move.from}, but the row read is ${op.phase}.`);
  }
  // Undefined fields are left alone, in the row we write and in the one we return.
  const defined = Object.fromEntries(
    Object.entries(changes).filter(([, value]) => value !== undefined),
  ) as OperationChanges;
  const moved = move === undefined || move.to === op.phase ? {} : { phase: move.to };
  const written = { ...defined, ...moved, version: op.version + 1, updatedAt: now };
  if (!(await tx.updateOperation(op.id, op.version, written)))
    throw new WriteConflict(`operation ${op.id} changed meanwhile`);
  // The conditional update matched the version we read, so the row is exactly what we read plus what we wrote.
  return { ...op, ...written };
}

/** Each command's lane (docs/authority.md#who-may-do-what): whose operations a key may run it on. */
const LANES: Record<OperationCommandName, Lane> = {
  claim: "agent",
  heartbeat: "agent",
  release: "agent",
  deliver: "agent",
  dispatch: "agent",
  outcome: "agent",
  reconcile: "shared",
  reject: "shared",
  approve: "shared",
};

export type OperationCommandName =
  "claim" | "heartbeat" | "release" | "deliver" | "dispatch" | "outcome" | "reconcile" | "reject" | "approve";

/**
 * Runs one command on one operation in one transaction of the ledger's store, retried on write conflicts. A key
 * outside the command's lane for this operation gets not_found, as if it did not exist.
 * A stale fence is refused with nothing changed, and the refusal itself is audited (in its own transaction, since
 * the command's transaction rolls back). The command runs inside its span (command-span.ts).
 */
export function operationCommand<T>(
  ledger: Ledger,
  id: string,
  actor: Actor,
  command: OperationCommandName,
  now: Date,
  work: (tx: Tx, ctx: OperationContext) => Promise<T>,
): Promise<T> {
  return commandSpan(command, actor, (span) =>
    runOperationCommand(ledger, id, actor, command, now, (tx, ctx) => {
      spanOperationBefore(span, ctx.op);
      return work(tx, ctx);
    }),
  );
}

async function runOperationCommand<T>(
  ledger: Ledger,
  id: string,
  actor: Actor,
  command: OperationCommandName,
  now: Date,
  work: (tx: Tx, ctx: OperationContext) => Promise<T>,
): Promise<T> {
  const store = ledger.store;
  try {
    return await withWriteRetry(() =>
      store.transaction(async (tx) => {
        const ctx = await loadContext(tx, id);
        checkLane(ctx.op, actor, LANES[command]);
        return work(tx, ctx);
      }),
    );
  } catch (error) {
    if (error instanceof LedgerError && error.code === "stale_fence") {
      await store.transaction((tx) =>
        tx.appendAudit([
          {
            subjectType: "operation",
            subjectId: id,
            actor,
            action: "operation.stale_fence_rejected",
            reason: error.message,
            data: { command },
            at: now,
          },
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
  if (
    op.phase !== seen.phase ||
    op.attempt !== seen.attempt ||
    op.approvedAttempt !== seen.approvedAttempt ||
    op.evidence !== seen.evidence
  ) {
    throw new LedgerError(
      "write_conflict",
      `Operation ${op.id} changed since it was shown (now ${op.phase}, attempt ${op.attempt}); look again before deciding.`,
      { operationId: op.id },
    );
  }
}
