"use client";
// The Search page's results: one page at a time through /api/console/search, older pages by the keyset cursor; an
// exact operation id goes straight to that operation.
import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import type { SearchMatch, SearchPage } from "@/lib/ledger/reads/search";
import { consoleGet } from "@/components/console-api";
import { ListError, TableSkeleton } from "@/components/operations/list-states";
import { OperationLink, RunAgent, ToolName } from "@/components/operations/operation-cells";
import { PhaseBadge } from "@/components/operations/phase-badge";
import { EmptyState } from "@/components/ui/empty-state";
import { RelativeTime } from "@/components/ui/relative-time";
import { TableHeader } from "@/components/ui/table-header";
import { buttonClass } from "@/components/ui/button-styles";

const PAGE_SIZE = 50;

const MATCH_LABELS: Record<SearchMatch, string> = {
  id: "operation id",
  idempotencyKey: "idempotency key",
  providerId: "provider id",
  runId: "run id",
  args: "a value in the arguments",
};

function searchUrl(q: string, cursor: string | undefined): string {
  const params = new URLSearchParams({ q, limit: String(PAGE_SIZE) });
  if (cursor) params.set("cursor", cursor);
  return `/api/console/search?${params.toString()}`;
}

export function SearchResults({ q }: { q: string }) {
  const router = useRouter();
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const query = useQuery({
    queryKey: ["operations", "search", q, cursor ?? null],
    queryFn: ({ signal }) => consoleGet<SearchPage>(searchUrl(q, cursor), signal),
    enabled: q.length > 0,
  });
  const exact = query.data?.operationId ?? null;
  useEffect(() => {
    if (exact) router.replace(`/operations/${encodeURIComponent(exact)}`);
  }, [exact, router]);

  if (q.length === 0) {
    return (
      <EmptyState title="Type what you are looking for in the search box above.">
        An operation id, an idempotency key, a provider id (a charge id, a message id), a run id, or a value the agent
        sent in the arguments, such as a customer id, an email address or an order number. Press / to get there.
      </EmptyState>
    );
  }
  if (query.isPending) return <TableSkeleton columns={6} rows={5} label={`Searching for ${q}`} />;
  if (query.isError)
    return <ListError error={query.error} what="the search results" onRetry={() => void query.refetch()} />;
  const page = query.data;
  if (exact) return <p role="status">Opening operation {exact}…</p>;
  if (page.items.length === 0) {
    return (
      <EmptyState title={`No operation matches “${q}”.`}>
        The match is exact and case-sensitive: check the case and the whole value. Values longer than 200 characters in
        the arguments are not indexed.
      </EmptyState>
    );
  }
  return (
    <section aria-label="Search results" data-search-results={q}>
      <div className="overflow-x-auto rounded-lg border border-line">
        <table aria-label={`Operations matching ${q}`} className="w-full border-collapse text-left">
          <TableHeader look="caps" columns={["Created", "Operation", "Tool", "Phase", "Found in", "Run / agent"]} />
          <tbody>
            {page.items.map((op) => (
              <tr
                key={op.id}
                data-operation-row={op.id}
                className="border-b border-line align-top last:border-b-0 hover:bg-surface-muted"
              >
                <td className="px-3 py-2 whitespace-nowrap">
                  <RelativeTime live value={op.createdAt} />
                </td>
                <td className="px-3 py-2">
                  <OperationLink id={op.id} />
                </td>
                <td className="px-3 py-2">
                  <ToolName tool={op.tool} version={op.contractVersion} via={op.via} />
                </td>
                <td className="px-3 py-2">
                  <PhaseBadge phase={op.phase} />
                </td>
                <td className="px-3 py-2 text-ink-muted" data-matched={op.matched.join(",")}>
                  {op.matched.map((m) => MATCH_LABELS[m]).join(", ")}
                </td>
                <td className="px-3 py-2">
                  <RunAgent runId={op.runId} agentId={op.agentId} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="mt-3 flex items-center gap-2">
        <button
          type="button"
          className={buttonClass("secondary", "sm")}
          disabled={cursors.length === 0}
          onClick={() => setCursors((c) => c.slice(0, -1))}
        >
          Newer
        </button>
        <button
          type="button"
          className={buttonClass("secondary", "sm")}
          disabled={!page.nextCursor}
          onClick={() => page.nextCursor && setCursors((c) => [...c, page.nextCursor!])}
        >
          Older
        </button>
        <span className="text-xs text-ink-subtle">
          {page.items.length} on this page{page.nextCursor ? ", more are older" : ""}
        </span>
      </div>
    </section>
  );
}
