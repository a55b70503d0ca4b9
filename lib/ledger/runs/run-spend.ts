// A run's allowance inside the commands that spend it (docs/run-allowance.md): the outcome and dispatch commands read
// it in their own transaction, give it to the gate, and write what the gate gave (a retry and its backoff) or refused
// (the allowance exhausted, audited) with the operation's change and its audit, on either engine.
import type { Operation, RunAllowance } from "@/lib/platform/generated/prisma/client";
import type { Decision } from "@/lib/retry-gate/types";
import type { Actor } from "../actor";
import { WriteConflict, type LedgerTx } from "../store/types";

/** The allowance the operation spends: its run's, when the operation's own key declared it; null otherwise. */
export async function allowanceOf(tx: LedgerTx, op: Operation): Promise<RunAllowance | null> {
  if (op.runId === null) return null;
  const row = await tx.runAllowance(op.runId);
  return row !== null && row.keyId === op.plannedByKeyId ? row : null;
}

/**
 * Spends one retry and its backoff, only if nobody spent any of the allowance since it was read: of two commands taking
 * the last retry at once, the second runs again (WriteConflict) and the gate, reading it spent, refuses.
 */
export async function spendRetry(tx: LedgerTx, row: RunAllowance, backoffMs: number, now: Date): Promise<void> {
  const changes = { retriesUsed: row.retriesUsed + 1, backoffUsedMs: row.backoffUsedMs + backoffMs, updatedAt: now };
  if (!(await tx.updateRunAllowance(row.runId, row, changes))) {
    throw new WriteConflict(`the allowance of run ${row.runId} changed meanwhile`);
  }
}

/**
 * The first retry the gate refuses because of the allowance stamps `exhaustedAt` and audits run.allowance_exhausted
 * (the webhook event and the metric come from that record); later refusals write nothing more.
 */
export async function markExhausted(
  tx: LedgerTx,
  row: RunAllowance,
  decision: Decision,
  op: Operation,
  actor: Actor,
  now: Date,
): Promise<void> {
  if (row.exhaustedAt !== null) return;
  if (!(await tx.updateRunAllowance(row.runId, row, { exhaustedAt: now, updatedAt: now }))) {
    throw new WriteConflict(`the allowance of run ${row.runId} changed meanwhile`);
  }
  await tx.appendAudit([
    {
      subjectType: "run",
      subjectId: row.runId,
      actor,
      action: "run.allowance_exhausted",
      reason: decision.reason,
      data: { operationId: op.id, tool: op.tool, bound: decision.runAllowance?.bound ?? null },
      at: now,
    },
  ]);
}
