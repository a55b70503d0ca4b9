// An MCP call made again under the gateway's default key (docs/mcp.md, "The same call again"): it is the earlier
// operation while that one's final answer has not been delivered (a retry: the client never got it), and a new
// operation linked to it once it has (a new intent: read again after a write, write an old value back).
import type { Operation } from "@/lib/platform/generated/prisma/client";
import type { Ledger } from "@/lib/ledger/ledger";
import type { Actor } from "../actor";
import { WriteConflict } from "../store/types";
import { operationCommand } from "./run-command";

/** The phases whose answer carries the call's outcome: once delivered, the client knows what the call did. */
const ANSWERED_PHASES: ReadonlySet<string> = new Set(["CONFIRMED", "FAILED"]);

/** Whether the call's final answer (its result, or its failure) reached the client in full. */
export function answerDelivered(op: Pick<Operation, "phase" | "deliveredAt">): boolean {
  return op.deliveredAt !== null && ANSWERED_PHASES.has(op.phase);
}

/** Wide enough that no run repeats a call more often; fixed, so the keys of one call sort in the order made. */
const SEQUENCE_DIGITS = 9;

/**
 * The key of the repeat after the operation keyed `latestKey`: the call key itself for the first operation, then
 * `<call key>~000000002`, `~000000003`, ... Two repeats made at once compute the same key, so they are one operation.
 */
export function repeatKey(callKey: string, latestKey: string): string {
  const sequence = latestKey === callKey ? 1 : Number(latestKey.slice(callKey.length + 1));
  return `${callKey}~${String(sequence + 1).padStart(SEQUENCE_DIGITS, "0")}`;
}

/**
 * The mark an outcome's own write carries when its answer goes to the client right after the commit (the MCP gateway's
 * answer to a call under the default key): the outcome's phase is a final answer, so the same call made again is a new
 * operation. Saves the write after the response; the gateway clears the mark (clearDelivery) when the answer was not
 * written out in full (docs/mcp.md, "The same call again").
 */
export function deliveredWith(
  op: Pick<Operation, "callKey">,
  phase: string | undefined,
  delivered: boolean | undefined,
  now: Date,
): Pick<Operation, "deliveredAt"> | Record<string, never> {
  return delivered && op.callKey !== null && phase !== undefined && ANSWERED_PHASES.has(phase)
    ? { deliveredAt: now }
    : {};
}

/**
 * Takes back a mark the outcome carried (deliveredWith) when the answer did not reach its client in full after all
 * (the client went away, or cancelled the request): the same call made again is then its retry.
 */
export async function clearDelivery(ledger: Ledger, id: string, actor: Actor, now: Date): Promise<void> {
  await operationCommand(ledger, id, actor, "deliver", now, async (tx, { op }) => {
    if (op.deliveredAt === null) return;
    if (!(await tx.updateOperation(op.id, op.version, { deliveredAt: null, version: op.version + 1 }))) {
      throw new WriteConflict(`operation ${op.id} changed meanwhile`);
    }
  });
}

/**
 * Records that the call's final answer reached its client in full, so that the same call made again is a new
 * operation (on any instance). Written after the response finished, for calls under the default key only (the only
 * ones it changes); bookkeeping like a heartbeat, so no audit record, and the phase's time (updatedAt) stays.
 */
export async function recordDelivery(ledger: Ledger, id: string, actor: Actor, now: Date): Promise<void> {
  await operationCommand(ledger, id, actor, "deliver", now, async (tx, { op }) => {
    if (op.callKey === null || op.deliveredAt !== null || !ANSWERED_PHASES.has(op.phase)) return;
    if (!(await tx.updateOperation(op.id, op.version, { deliveredAt: now, version: op.version + 1 }))) {
      throw new WriteConflict(`operation ${op.id} changed meanwhile`);
    }
  });
}
