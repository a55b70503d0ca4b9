// An outcome report that spends the run's allowance: a failed attempt of an operation whose run has one reserves a
// retry before the gate decides (so concurrent failures never give more than maxRetries), gives it back when the gate
// schedules none, adds the retry's backoff, and marks the allowance exhausted, audited, when the gate refused a retry
// because of it.
import type { Ledger } from "@/lib/ledger/ledger";
import type { RunAllowance } from "@/lib/generated/prisma/client";
import type { Actor } from "../actor";
import { auditedTransaction } from "../audit/audited-transaction";
import { reportOutcome, type OutcomeInput } from "../commands/outcome";
import type { OperationView } from "../reads/operation-view";
import { runBudget } from "./run-allowances";

/** Takes one retry of the allowance if any is left; the count before it, or null when none was left. */
async function reserveRetry(ledger: Ledger, row: RunAllowance): Promise<number | null> {
  if (row.maxRetries === null) return row.retriesUsed;
  const taken = await ledger.db.runAllowance.updateMany({
    where: { runId: row.runId, retriesUsed: { lt: row.maxRetries } },
    data: { retriesUsed: { increment: 1 } },
  });
  if (taken.count === 0) return null;
  const after = await ledger.db.runAllowance.findUniqueOrThrow({ where: { runId: row.runId } });
  return after.retriesUsed - 1;
}

async function giveBack(ledger: Ledger, row: RunAllowance): Promise<void> {
  await ledger.db.runAllowance.updateMany({
    where: { runId: row.runId, retriesUsed: { gt: 0 } },
    data: { retriesUsed: { decrement: 1 } },
  });
}

/** The failure's own sentence, from its audit record: the view's decision is the failed phase's general one. */
async function failureReason(ledger: Ledger, id: string): Promise<string | null> {
  const event = await ledger.db.auditEvent.findFirst({
    where: { subjectType: "operation", subjectId: id, action: "operation.failed" },
    orderBy: { id: "desc" },
    select: { reason: true },
  });
  return event?.reason ?? null;
}

async function markExhausted(
  ledger: Ledger,
  row: RunAllowance,
  view: OperationView,
  reason: string,
  actor: Actor,
  now: Date,
) {
  await auditedTransaction(ledger, async (tx, audit) => {
    const first = await tx.runAllowance.updateMany({
      where: { runId: row.runId, exhaustedAt: null },
      data: { exhaustedAt: now },
    });
    if (first.count === 0) return;
    audit([
      {
        subjectType: "run",
        subjectId: row.runId,
        actor,
        action: "run.allowance_exhausted",
        reason,
        data: { operationId: view.id, tool: view.tool },
        at: now,
      },
    ]);
  });
}

export async function reportOutcomeInRun(
  ledger: Ledger,
  id: string,
  input: OutcomeInput,
  actor: Actor,
  now: Date,
  random?: () => number,
): Promise<OperationView> {
  if (input.result !== "failed") return reportOutcome(ledger, id, input, actor, now, random);
  const op = await ledger.db.operation.findUnique({
    where: { id },
    select: { runId: true, phase: true, plannedByKeyId: true },
  });
  // A report sent again (the operation is no longer DISPATCHED) changes nothing, so it spends nothing either.
  const row =
    op?.runId && op.phase === "DISPATCHED"
      ? await ledger.db.runAllowance.findUnique({ where: { runId: op.runId } })
      : null;
  if (!row || row.keyId !== op?.plannedByKeyId) return reportOutcome(ledger, id, input, actor, now, random);

  const before = await reserveRetry(ledger, row);
  const reserved = before !== null && row.maxRetries !== null;
  let view: OperationView;
  try {
    const run = runBudget(row, before ?? row.maxRetries ?? row.retriesUsed);
    view = await reportOutcome(ledger, id, { ...input, run }, actor, now, random);
  } catch (error) {
    if (reserved) await giveBack(ledger, row);
    throw error;
  }
  if (view.phase === "RETRY_SCHEDULED") {
    const backoffMs = view.notBefore ? Math.max(0, new Date(view.notBefore).getTime() - now.getTime()) : 0;
    await ledger.db.runAllowance.update({
      where: { runId: row.runId },
      data: { backoffUsedMs: { increment: backoffMs }, ...(reserved ? {} : { retriesUsed: { increment: 1 } }) },
    });
    return view;
  }
  if (reserved) await giveBack(ledger, row);
  if (view.phase === "FAILED") {
    const reason = await failureReason(ledger, id);
    if (reason?.includes(`the run ${row.runId}`)) {
      await markExhausted(ledger, row, view, reason, actor, now);
      return { ...view, decision: { action: "STOP", reason } };
    }
  }
  return view;
}
