// GET /api/console/bulk/{jobId}: a bulk job's progress and one page of its per-operation report, for the console's
// progress dialog (cookie session, viewer: reading a job changes nothing).
import { consoleRoute } from "@/lib/console/console-route";
import { json } from "@/lib/platform/http/problem";
import { readQuery } from "@/lib/platform/http/query";
import { getBulkJob } from "@/lib/ledger/bulk/job";
import { bulkJobQuery } from "@/lib/ledger/bulk/request";

export const GET = consoleRoute<{ jobId: string }>("viewer", async ({ req, ledger, params }) => {
  return json(await getBulkJob(ledger, params.jobId, readQuery(req, bulkJobQuery)));
});
