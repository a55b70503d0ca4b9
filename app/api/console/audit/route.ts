// GET /api/console/audit: one keyset page of the audit log, newest first, with the audit page's filters (subjectType,
// subjectId, actorId, action, since, cursor, limit).
import { consoleRoute } from "@/lib/console/console-route";
import { json, problem } from "@/lib/platform/http/problem";
import { AUDIT_PAGE_SIZE, parseAuditSearch } from "@/lib/console/audit-search";
import { listAuditEvents } from "@/lib/ledger/reads/audit-log";

export const GET = consoleRoute("viewer", async ({ req, ledger, now }) => {
  const params = Object.fromEntries(new URL(req.url).searchParams.entries());
  const { search, filter, problems } = parseAuditSearch(params, now);
  // The page shows a bad filter and ignores it; a program asking the route gets told instead.
  if (problems.length > 0)
    return problem({ status: 400, code: "invalid_query", title: "Bad request", detail: problems.join(" ") });
  return json(await listAuditEvents(ledger, filter, { cursor: search.cursor, limit: search.limit ?? AUDIT_PAGE_SIZE }));
});
