// What a bulk action asks for, for the API, the console and the ledger alike: the action, the exact set (a filter of
// the ledger's fields or a list of ids) and, for a reconcile, its outcome and one piece of evidence.
import { z } from "zod";
import { EFFECT_CLASSES, PHASES } from "@/lib/retry-gate/types";
import { reconcileEvidence } from "../evidence";

/** A preview holds at most this many operations; more is refused with a request to narrow the filter. */
export const MAX_BULK_OPERATIONS = 10_000;

/** How long a preview may be run after it was made. */
export const PREVIEW_TTL_MS = 15 * 60_000;

export const BULK_ACTIONS = ["lookup_reconcile", "reconcile", "approve", "reject"] as const;
export type BulkActionName = (typeof BULK_ACTIONS)[number];

const text = (max: number) => z.string().trim().min(1).max(max);
const time = z.iso.datetime({ offset: true }).transform((value) => new Date(value));

/** The fields of GET /api/v1/operations, plus a creation-time window. */
export const bulkFilterSchema = z
  .object({
    phase: z.enum(PHASES).optional(),
    tool: text(128).optional(),
    effect: z.enum(EFFECT_CLASSES).optional(),
    runId: text(200).optional(),
    agentId: text(200).optional(),
    createdBefore: time.optional(),
    createdAfter: time.optional(),
  })
  .strict();

export type BulkFilter = z.infer<typeof bulkFilterSchema>;

const idSchema = z.string().trim().min(1).max(64);

const previewFields = z
  .object({
    action: z.enum(BULK_ACTIONS),
    filter: bulkFilterSchema.optional(),
    ids: z.array(idSchema).min(1).max(MAX_BULK_OPERATIONS).optional(),
    reason: z.string().trim().max(1000).optional(),
    outcome: z.enum(["applied", "not_applied"]).optional(),
    /** The same evidence a single reconcile takes (any JSON value), for every operation of the set. */
    evidence: reconcileEvidence.optional(),
    providerId: text(200).optional(),
    /** Reconcile as not applied and grant the next attempt: the human gate, per operation. */
    approveRetry: z.boolean().optional(),
  })
  .strict();

function checkPreview(body: z.infer<typeof previewFields>, ctx: z.RefinementCtx): void {
  if ((body.filter === undefined) === (body.ids === undefined)) {
    ctx.addIssue({ code: "custom", path: ["filter"], message: "Give either a filter or a list of ids, not both." });
  }
  if (body.action === "reconcile") {
    if (!body.outcome) ctx.addIssue({ code: "custom", path: ["outcome"], message: "Say applied or not_applied." });
    if (body.evidence === undefined) {
      ctx.addIssue({ code: "custom", path: ["evidence"], message: "Give one piece of evidence." });
    }
    if (body.approveRetry && body.outcome !== "not_applied") {
      ctx.addIssue({
        code: "custom",
        path: ["approveRetry"],
        message: "A retry can only be approved when the effect did not happen.",
      });
    }
  } else {
    for (const field of ["outcome", "evidence", "providerId", "approveRetry"] as const) {
      if (body[field] !== undefined) {
        ctx.addIssue({ code: "custom", path: [field], message: `Only a reconcile takes ${field}.` });
      }
    }
  }
}

/** A preview request, as the ledger takes it. */
export const bulkPreviewSchema = previewFields.superRefine(checkPreview);

/** A preview request as POST /api/v1/bulk takes it: a dry run, said so. */
export const bulkPreviewBody = previewFields
  .extend({ dryRun: z.literal(true, "A preview says dryRun: true; to run a preview send { previewId, reason }.") })
  .superRefine(checkPreview);

export type BulkPreviewRequest = z.infer<typeof bulkPreviewSchema>;

/** A run request: the preview to run, and the reason every operation's audit record will carry. */
export const bulkRunSchema = z.object({ previewId: idSchema, reason: text(1000) }).strict();
export type BulkRunRequest = z.infer<typeof bulkRunSchema>;

/** The reason a cancellation is recorded with. */
export const bulkCancelSchema = z.object({ reason: text(1000) }).strict();

/** A page of a job's items: positions after `cursor`, at most JOB_ITEMS_PAGE. */
export const JOB_ITEMS_PAGE = 1000;
export const bulkJobQuery = z
  .object({
    cursor: z.coerce.number().int().min(0).optional(),
    limit: z.coerce.number().int().min(1).max(JOB_ITEMS_PAGE).optional(),
  })
  .strict();
