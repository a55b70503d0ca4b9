// One item of a bulk job, through the same ledger command as the single console action, as the job's actor: the
// command checks everything again and writes the operation's own audit record.
import type { Operation } from "@/lib/platform/generated/prisma/client";
import type { Ledger } from "@/lib/ledger/ledger";
import type { OutboundOptions } from "@/lib/services/outbound/send";
import type { Actor } from "../actor";
import { approveOperation, rejectOperation } from "../commands/approval";
import { lookupForOperation } from "../commands/auto-reconcile";
import { reconcileOperation } from "../commands/reconcile";
import type { SeenState } from "../commands/run-command";
import { LedgerError } from "../errors";
import { reconcileSuggestion } from "../outbound/provider-lookup";
import { isWriteConflict } from "../store/types";
import type { ItemResult } from "./job";
import type { BulkPreviewRequest } from "./request";

export interface BulkJobContext {
  jobId: string;
  request: BulkPreviewRequest;
  /** The run's reason, as every operation's audit record carries it. */
  reason: string;
  actor: Actor;
  outbound?: OutboundOptions;
}

export interface ItemOutcome {
  result: ItemResult;
  detail: string | null;
}

/**
 * The reason an operation's audit record gets: the person's, marked with the job, so a runner that takes over a job
 * after a crash can tell an operation this job already acted on from one somebody else changed.
 */
export function jobReason(job: Pick<BulkJobContext, "jobId" | "reason">): string {
  return `${job.reason} (bulk ${job.jobId})`;
}

export function jobMarker(jobId: string): string {
  return `(bulk ${jobId})`;
}

function seenOf(op: Operation): SeenState {
  return { phase: op.phase, attempt: op.attempt, approvedAttempt: op.approvedAttempt, evidence: op.evidence };
}

async function lookupAndReconcile(ledger: Ledger, job: BulkJobContext, op: Operation, now: Date): Promise<ItemOutcome> {
  const evidence = await lookupForOperation(ledger, op.id, now, job.outbound);
  const suggestion = reconcileSuggestion(evidence);
  if (!suggestion) {
    return evidence.ok
      ? { result: "skipped", detail: `left UNKNOWN: the lookup proved nothing (${evidence.verdict})` }
      : { result: "failed", detail: `lookup_failed: ${evidence.reason}` };
  }
  const providerId = suggestion.outcome === "applied" ? (suggestion.providerId ?? op.providerId) : null;
  const view = await reconcileOperation(
    ledger,
    op.id,
    {
      outcome: suggestion.outcome,
      ...(providerId ? { providerId } : {}),
      evidence,
      reason: `${jobReason(job)}; provider lookup: ${evidence.ok ? evidence.verdict : ""}`,
      seen: seenOf(op),
    },
    job.actor,
    now,
  );
  return { result: "acted", detail: `reconciled ${suggestion.outcome} → ${view.decision.action}` };
}

async function act(ledger: Ledger, job: BulkJobContext, op: Operation, now: Date): Promise<ItemOutcome> {
  const { request, actor } = job;
  const decision = { reason: jobReason(job), seen: seenOf(op) };
  switch (request.action) {
    case "approve": {
      const view = await approveOperation(ledger, op.id, decision, actor, now);
      return { result: "acted", detail: `approved → ${view.phase}` };
    }
    case "reject":
      await rejectOperation(ledger, op.id, decision, actor, now);
      return { result: "acted", detail: "rejected" };
    case "reconcile": {
      const outcome = request.outcome ?? "not_applied";
      const providerId = outcome === "applied" ? (request.providerId ?? op.providerId) : null;
      const view = await reconcileOperation(
        ledger,
        op.id,
        {
          outcome,
          ...(providerId ? { providerId } : {}),
          ...(request.approveRetry ? { approveRetry: true } : {}),
          evidence: request.evidence ?? null,
          reason: decision.reason,
          seen: decision.seen,
        },
        actor,
        now,
      );
      return { result: "acted", detail: `reconciled ${outcome} → ${view.decision.action}` };
    }
    case "lookup_reconcile":
      return lookupAndReconcile(ledger, job, op, now);
  }
}

/**
 * Runs one item on `op`, read just before at the version the preview saw. Changed meanwhile (the command's own check
 * of what was seen, or a write conflict it could not get past): stale, untouched. Refused by the command: failed, with
 * its code.
 */
export async function actOnItem(ledger: Ledger, job: BulkJobContext, op: Operation, now: Date): Promise<ItemOutcome> {
  try {
    return await act(ledger, job, op, now);
  } catch (error) {
    if ((error instanceof LedgerError && error.code === "write_conflict") || isWriteConflict(error)) {
      return { result: "stale", detail: "changed while the job ran; left untouched" };
    }
    if (error instanceof LedgerError) return { result: "failed", detail: `${error.code}: ${error.message}` };
    console.error("opledger: bulk item failed:", error instanceof Error ? error.stack : error);
    return { result: "failed", detail: "internal_error: the server failed on this operation; it has been logged" };
  }
}
