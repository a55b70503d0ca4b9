"use server";
// Console actions of a bulk action: preview the exact set, run the preview, cancel the job. Operator role; the ledger
// decides everything else (who may run which preview, four-eyes per operation, what is stale).
import { z } from "zod";
import { consoleAction } from "@/lib/console/actions/console-action";
import { cancelBulk, runBulk, type BulkJobView } from "@/lib/ledger/bulk/job";
import { previewBulk, type BulkPreview } from "@/lib/ledger/bulk/preview";
import { bulkCancelSchema, bulkPreviewSchema, bulkRunSchema } from "@/lib/ledger/bulk/request";

export type BulkPreviewInput = z.input<typeof bulkPreviewSchema>;

/** A dry run: the exact set, what each operation gets, what is skipped and why; frozen for 15 minutes. */
export const previewBulkAction = consoleAction("operator", bulkPreviewSchema, (input, ctx): Promise<BulkPreview> =>
  previewBulk(ctx.ledger, input, ctx.actor, ctx.now),
);

/** Runs the person's own preview in the background; the dialog then follows the job. */
export const runBulkAction = consoleAction("operator", bulkRunSchema, (input, ctx): Promise<{ jobId: string }> =>
  runBulk(ctx.ledger, input, ctx.actor, ctx.now),
);

const cancelSchema = bulkCancelSchema.extend({ jobId: z.string().trim().min(1).max(64) }).strict();

/** Stops the job after the batch in hand; what was done stays done. */
export const cancelBulkAction = consoleAction("operator", cancelSchema, (input, ctx): Promise<BulkJobView> =>
  cancelBulk(ctx.ledger, input.jobId, { reason: input.reason }, ctx.actor, ctx.now),
);
