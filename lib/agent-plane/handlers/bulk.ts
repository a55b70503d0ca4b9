// /api/v1/bulk: preview a bulk action ({ action, filter | ids, dryRun: true, ... } → 200, the exact set, frozen 15
// minutes) or run a preview ({ previewId, reason } → 202 { jobId }); /api/v1/bulk/{jobId}: a job's status, counts and
// one page of its results (?cursor=&limit=, at most 1,000 a page); /api/v1/bulk/{jobId}/cancel { reason }: stops a
// running job after the batch in hand (what was done stays done; a finished job is 409 job_finished). An operator's
// key (it acts as its person); approving in bulk needs a key bound to a person (person_required otherwise).
import { jsonReply } from "@/lib/platform/http/problem";
import { validQuery } from "@/lib/platform/http/query";
import { validBody } from "@/lib/platform/http/request-body";
import { cancelBulk, getBulkJob, runBulk } from "@/lib/ledger/bulk/job";
import { previewBulk } from "@/lib/ledger/bulk/preview";
import { bulkCancelSchema, bulkJobQuery, bulkPreviewBody, bulkRunSchema } from "@/lib/ledger/bulk/request";
import { keyed } from "../endpoint";

function isRun(body: unknown): boolean {
  return typeof body === "object" && body !== null && !Array.isArray(body) && "previewId" in body;
}

export const bulkEndpoint = keyed(["operator"], async ({ body, ledger, actor, now }) => {
  const value = await body();
  if (isRun(value)) {
    const { jobId } = await runBulk(ledger, validBody(value, bulkRunSchema), actor, now);
    return jsonReply({ jobId, status: "running", href: `/api/v1/bulk/${jobId}` }, 202, {
      location: `/api/v1/bulk/${jobId}`,
    });
  }
  const { dryRun: _dryRun, ...request } = validBody(value, bulkPreviewBody);
  return jsonReply(await previewBulk(ledger, request, actor, now));
});

export const bulkJobEndpoint = keyed(["operator"], async ({ query, ledger, params }) =>
  jsonReply(await getBulkJob(ledger, params.jobId!, validQuery(query, bulkJobQuery))),
);

export const bulkCancelEndpoint = keyed(["operator"], async ({ body, ledger, params, actor, now }) =>
  jsonReply(await cancelBulk(ledger, params.jobId!, validBody(await body(), bulkCancelSchema), actor, now)),
);
