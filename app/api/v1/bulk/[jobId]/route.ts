// GET /api/v1/bulk/{jobId}: a bulk job's status, counts and one page of its per-operation results
// (?cursor=&limit=, at most 1,000 items a page). An operator's key.
import { json, otherMethods } from "@/lib/api/problem";
import { readQuery } from "@/lib/api/query";
import { apiRoute } from "@/lib/api/route";
import { getBulkJob } from "@/lib/ledger/bulk/job";
import { bulkJobQuery } from "@/lib/ledger/bulk/request";

export const GET = apiRoute<{ jobId: string }>(["operator"], async ({ req, ledger, params }) => {
  const page = readQuery(req, bulkJobQuery);
  return json(await getBulkJob(ledger, params.jobId, page));
});

const refused = otherMethods("GET");
export const POST = refused.POST;
export const PUT = refused.PUT;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
