// Running a preview as a job, cancelling it, and reading its progress. The job itself is worked through by the runner
// (runner.ts); these only change its row, each with its audit record.
import type { BulkAction } from "@/lib/platform/generated/prisma/client";
import type { Ledger } from "@/lib/ledger/ledger";
import type { Actor } from "../actor";
import { auditedTransaction } from "../audit/audited-transaction";
import { LedgerError } from "../errors";
import { newId } from "../ids";
import { bulkPrincipal, requireBulkOperator } from "./principal";
import { JOB_ITEMS_PAGE, type BulkActionName, type BulkRunRequest } from "./request";

export type BulkStatus = "previewed" | "running" | "done" | "cancelled";
export type ItemResult = "acted" | "skipped" | "stale" | "failed";

export interface BulkJobView {
  jobId: string;
  previewId: string;
  action: BulkActionName;
  status: BulkStatus;
  reason: string;
  total: number;
  acted: number;
  skipped: number;
  stale: number;
  failed: number;
  /** Items not run yet. */
  pending: number;
  cancelRequested: boolean;
  startedAt: string | null;
  finishedAt: string | null;
  items: { id: string; result: ItemResult | null; detail: string | null }[];
  /** The next page of items (positions after this one), or null. */
  nextCursor: string | null;
}

function noPreview(id: string): LedgerError {
  return new LedgerError("not_found", `There is no bulk preview ${id}.`);
}

/**
 * Starts the preview's job: only the principal that previewed may, within PREVIEW_TTL_MS, once. Someone else's preview
 * is not found, as if it did not exist. The items the preview skipped are settled as skipped at once; the runner does
 * the rest. Answers the job id.
 */
export async function runBulk(
  ledger: Ledger,
  input: BulkRunRequest,
  actor: Actor,
  now: Date,
): Promise<{ jobId: string }> {
  requireBulkOperator(actor);
  const jobId = newId();
  return auditedTransaction(ledger, async (tx, audit) => {
    const preview = await tx.bulkAction.findUnique({ where: { id: input.previewId } });
    if (!preview || preview.createdBy !== bulkPrincipal(actor)) throw noPreview(input.previewId);
    if (preview.status !== "previewed") {
      throw new LedgerError("already_run", `Preview ${preview.id} was already run as job ${preview.jobId}.`);
    }
    if (preview.previewExpiresAt.getTime() <= now.getTime()) {
      throw new LedgerError(
        "preview_expired",
        `Preview ${preview.id} expired at ${preview.previewExpiresAt.toISOString()}; preview again to see the set as it is now.`,
      );
    }
    const skipped = await tx.bulkItem.updateMany({
      where: { bulkId: preview.id, skip: true },
      data: { result: "skipped" },
    });
    const started = await tx.bulkAction.updateMany({
      where: { id: preview.id, version: preview.version, status: "previewed" },
      data: {
        jobId,
        status: "running",
        reason: input.reason,
        skipped: skipped.count,
        startedAt: now,
        version: { increment: 1 },
      },
    });
    if (started.count !== 1) throw new LedgerError("already_run", `Preview ${preview.id} was run meanwhile.`);
    audit([
      {
        subjectType: "bulk",
        subjectId: jobId,
        actor,
        action: "bulk.started",
        reason: input.reason,
        data: {
          previewId: preview.id,
          action: preview.action,
          request: JSON.parse(preview.requestJson) as unknown,
          total: preview.matched,
          skipped: skipped.count,
        },
        at: now,
      },
    ]);
    return { jobId };
  });
}

async function jobRow(ledger: Ledger, jobId: string): Promise<BulkAction> {
  const job = await ledger.db.bulkAction.findUnique({ where: { jobId } });
  if (!job) throw new LedgerError("not_found", `There is no bulk job ${jobId}.`);
  return job;
}

/**
 * Asks the job to stop: the runner finishes the batch in hand and stops before the next one; what was done stays done.
 * Any operator may stop a job (stopping changes no operation); the request is audited.
 */
export async function cancelBulk(
  ledger: Ledger,
  jobId: string,
  input: { reason: string },
  actor: Actor,
  now: Date,
): Promise<BulkJobView> {
  requireBulkOperator(actor);
  await auditedTransaction(ledger, async (tx, audit) => {
    const job = await tx.bulkAction.findUnique({ where: { jobId } });
    if (!job) throw new LedgerError("not_found", `There is no bulk job ${jobId}.`);
    if (job.status !== "running") throw new LedgerError("job_finished", `Bulk job ${jobId} is ${job.status} already.`);
    if (job.cancelRequested) return;
    const asked = await tx.bulkAction.updateMany({
      where: { id: job.id, status: "running" },
      data: { cancelRequested: true },
    });
    if (asked.count !== 1) throw new LedgerError("job_finished", `Bulk job ${jobId} finished meanwhile.`);
    audit([
      {
        subjectType: "bulk",
        subjectId: jobId,
        actor,
        action: "bulk.cancelled",
        reason: input.reason,
        data: { previewId: job.id },
        at: now,
      },
    ]);
  });
  return getBulkJob(ledger, jobId, {});
}

/** The job's counts and one page of its items, in preview order. */
export async function getBulkJob(
  ledger: Ledger,
  jobId: string,
  page: { cursor?: number; limit?: number },
): Promise<BulkJobView> {
  const job = await jobRow(ledger, jobId);
  const limit = Math.min(Math.max(page.limit ?? JOB_ITEMS_PAGE, 1), JOB_ITEMS_PAGE);
  const [rows, pending] = await Promise.all([
    ledger.db.bulkItem.findMany({
      where: { bulkId: job.id, ...(page.cursor !== undefined ? { position: { gt: page.cursor } } : {}) },
      orderBy: { position: "asc" },
      take: limit + 1,
      select: { position: true, operationId: true, result: true, detail: true },
    }),
    ledger.db.bulkItem.count({ where: { bulkId: job.id, result: null } }),
  ]);
  const items = rows.slice(0, limit);
  return {
    jobId,
    previewId: job.id,
    action: job.action as BulkActionName,
    status: job.status as BulkStatus,
    reason: job.reason,
    total: job.matched,
    acted: job.acted,
    skipped: job.skipped,
    stale: job.stale,
    failed: job.failed,
    pending,
    cancelRequested: job.cancelRequested,
    startedAt: job.startedAt?.toISOString() ?? null,
    finishedAt: job.finishedAt?.toISOString() ?? null,
    items: items.map((i) => ({ id: i.operationId, result: i.result as ItemResult | null, detail: i.detail })),
    nextCursor: rows.length > limit ? String(items.at(-1)?.position) : null,
  };
}
