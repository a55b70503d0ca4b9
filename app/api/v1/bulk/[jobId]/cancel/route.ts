// POST /api/v1/bulk/{jobId}/cancel { reason }: stops a running bulk job after the batch in hand (what was done stays
// done). An operator's key; a finished job is 409 job_finished.
import { json, otherMethods } from "@/lib/api/problem";
import { readJson } from "@/lib/api/request-body";
import { apiRoute } from "@/lib/api/route";
import { cancelBulk } from "@/lib/ledger/bulk/job";
import { bulkCancelSchema } from "@/lib/ledger/bulk/request";

export const POST = apiRoute<{ jobId: string }>(["operator"], async ({ req, ledger, params, actor, now }) => {
  const body = await readJson(req, bulkCancelSchema);
  return json(await cancelBulk(ledger, params.jobId, body, actor, now));
});

const refused = otherMethods("POST");
export const GET = refused.GET;
export const PUT = refused.PUT;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
