// POST /api/v1/bulk: preview a bulk action ({ action, filter | ids, dryRun: true, ... } → 200, the exact set, frozen
// 15 minutes) or run a preview ({ previewId, reason } → 202 { jobId }). An operator's key (it acts as its person);
// agent keys get 403. Approving in bulk needs a key bound to a person (person_required otherwise).
import { json, otherMethods } from "@/lib/api/problem";
import { readJsonValue } from "@/lib/api/request-body";
import { apiRoute } from "@/lib/api/route";
import { runBulk } from "@/lib/ledger/bulk/job";
import { previewBulk } from "@/lib/ledger/bulk/preview";
import { bulkPreviewBody, bulkRunSchema } from "@/lib/ledger/bulk/request";
import { validBody } from "./bulk-http";

function isRun(body: unknown): boolean {
  return typeof body === "object" && body !== null && !Array.isArray(body) && "previewId" in body;
}

export const POST = apiRoute(["operator"], async ({ req, ledger, actor, now }) => {
  const body = await readJsonValue(req);
  if (isRun(body)) {
    const { jobId } = await runBulk(ledger, validBody(body, bulkRunSchema), actor, now);
    return json({ jobId, status: "running", href: `/api/v1/bulk/${jobId}` }, 202, {
      location: `/api/v1/bulk/${jobId}`,
    });
  }
  const { dryRun: _dryRun, ...request } = validBody(body, bulkPreviewBody);
  return json(await previewBulk(ledger, request, actor, now));
});

const refused = otherMethods("POST");
export const GET = refused.GET;
export const PUT = refused.PUT;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
