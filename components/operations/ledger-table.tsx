"use client";
// The ledger: every operation, newest first, filtered and paged through the URL, refreshed live on its newest page.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import { BulkBar } from "@/components/bulk/bulk-bar";
import { filterTarget } from "@/components/bulk/bulk-target";
import { SelectPageBox, SelectRowBox } from "@/components/bulk/select-cells";
import { useBulkSelection, type BulkSelection } from "@/components/bulk/use-bulk-selection";
import { EmptyState } from "@/components/ui/empty-state";
import { RelativeTime } from "@/components/ui/relative-time";
import { TableHeader } from "@/components/ui/table-header";
import { useHydrated } from "@/components/ui/use-hydrated";
import { consoleKeys, fetchOperations, keepPolling, LIVE_INTERVAL_MS } from "@/components/console-api";
import { DecisionBadge } from "./decision-badge";
import { LedgerFilters } from "./ledger-filters";
import {
  hasFilters,
  ledgerHref,
  ledgerRequest,
  operationsApiUrl,
  readLedgerLocation,
  type LedgerFilter,
  type LedgerLocation,
  type OperationsRequest,
} from "@/lib/console/ledger-search";
import { ListError, LiveStatus, TableSkeleton } from "./list-states";
import { AttemptCount, EffectClassText, OperationLink, RunAgent, ToolName } from "./operation-cells";
import type { OperationPage, OperationRow } from "@/lib/console/operation-row";
import { PhaseBadge } from "./phase-badge";

const COLUMNS = ["Operation", "Tool", "Effect", "Phase", "Attempts", "Decision", "Run / agent", "Created"] as const;

/**
 * Filters replace the URL (no history entry per keystroke); paging pushes one, so Back returns to the previous page.
 */
function go(location: LedgerLocation, mode: "push" | "replace"): void {
  const href = ledgerHref(location);
  // The native history API updates useSearchParams without a server round trip (Next.js integrates it into its router).
  if (mode === "push") window.history.pushState(null, "", href);
  else window.history.replaceState(null, "", href);
}

/** What the ledger offers in bulk: every action, since its filter may hold any phase; the preview says what applies. */
const LEDGER_BULK_ACTIONS = ["lookup_reconcile", "reconcile", "approve", "reject"] as const;

/** A page of operations the server read for this page's HTML, with the request it answers and when it was read. */
export interface ServedPage {
  request: OperationsRequest;
  page: OperationPage;
  at: number;
}

/**
 * `canAct`: the person may act (operator role); a viewer gets no checkboxes, and every action checks again anyway.
 * `served`: the page the server rendered with, shown until the browser's own fetch replaces it; only for its request.
 */
export function LedgerTable({ canAct = false, served }: { canAct?: boolean; served?: ServedPage }) {
  const searchParams = useSearchParams();
  const location = useMemo(() => readLedgerLocation(new URLSearchParams(searchParams.toString())), [searchParams]);
  const [paused, setPaused] = useState(false);
  const request = ledgerRequest(location);
  const onNewestPage = request.cursor === undefined;
  const live = onNewestPage && !paused;

  const initial = served && operationsApiUrl(served.request) === operationsApiUrl(request) ? served : undefined;
  const query = useQuery({
    queryKey: consoleKeys.list(request),
    queryFn: ({ signal }) => fetchOperations(request, signal),
    initialData: initial?.page,
    initialDataUpdatedAt: initial?.at,
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (live && keepPolling(q.state.error) ? LIVE_INTERVAL_MS : false),
    refetchOnWindowFocus: live,
  });

  const setFilter = (filter: LedgerFilter) => go({ filter, cursors: [], limit: location.limit }, "replace");
  const selection = useBulkSelection();
  const filterKey = JSON.stringify(location.filter);
  const { clear } = selection;
  // A selection belongs to the filter it was made under.
  useEffect(() => clear(), [filterKey, clear]);
  const page = location.cursors.length + 1;
  const nextCursor = query.data?.nextCursor ?? null;
  const changing = query.isPlaceholderData;
  const hydrated = useHydrated();

  return (
    // The rows come with the HTML, so the controls show before their handlers exist: a filter typed then would be
    // submitted natively, a click on a pager or checkbox lost. They wait for hydration.
    <fieldset disabled={!hydrated} className="contents">
      <LedgerFilters filter={location.filter} onChange={setFilter} />
      {canAct ? (
        <BulkBar
          selection={selection}
          actions={LEDGER_BULK_ACTIONS}
          pageIds={query.data?.items.map((op) => op.id) ?? []}
          matchingTarget={() => filterTarget(location.filter, Date.now())}
          matchingLabel={hasFilters(location.filter) ? "all that match this filter" : "every operation in the ledger"}
        />
      ) : null}
      <div className="mb-2 flex flex-wrap items-center justify-between gap-3">
        <LiveStatus
          available={onNewestPage}
          paused={paused}
          onToggle={() => setPaused((p) => !p)}
          fetching={query.isFetching}
          stale={query.isRefetchError}
          updatedAt={query.dataUpdatedAt}
        />
        <Pager
          page={page}
          canNewer={!onNewestPage}
          canOlder={nextCursor !== null && !changing}
          onNewest={() => go({ ...location, cursors: [] }, "push")}
          onNewer={() => go({ ...location, cursors: location.cursors.slice(0, -1) }, "push")}
          onOlder={() => nextCursor && go({ ...location, cursors: [...location.cursors, nextCursor] }, "push")}
        />
      </div>
      {query.isPending ? (
        <TableSkeleton columns={COLUMNS.length} label="Loading operations…" />
      ) : query.isError && !query.data ? (
        <ListError error={query.error} what="the ledger" onRetry={() => void query.refetch()} />
      ) : query.data.items.length === 0 ? (
        <LedgerEmpty filter={location.filter} olderPage={!onNewestPage} />
      ) : (
        <OperationsGrid rows={query.data.items} busy={changing} selection={canAct ? selection : undefined} />
      )}
      {query.data && query.data.items.length > 0 ? (
        <p className="mt-2 text-xs text-ink-subtle">
          Page {page} · {query.data.items.length} operation{query.data.items.length === 1 ? "" : "s"}
          {nextCursor ? " · older ones on the next page" : " · no older operations"}
        </p>
      ) : null}
    </fieldset>
  );
}

function Pager(props: {
  page: number;
  canNewer: boolean;
  canOlder: boolean;
  onNewest: () => void;
  onNewer: () => void;
  onOlder: () => void;
}) {
  const button =
    "h-7 rounded-md px-2.5 text-xs font-medium text-ink ring-1 ring-line-strong hover:bg-surface-muted " +
    "disabled:cursor-not-allowed disabled:text-ink-subtle disabled:opacity-60 disabled:hover:bg-transparent";
  return (
    <nav aria-label="Pages of the ledger" className="flex items-center gap-1.5">
      <button type="button" className={button} disabled={!props.canNewer} onClick={props.onNewest}>
        Newest
      </button>
      <button type="button" className={button} disabled={!props.canNewer} onClick={props.onNewer}>
        ← Newer
      </button>
      <span className="px-1.5 text-xs text-ink-muted tabular-nums" aria-live="polite">
        Page {props.page}
      </span>
      <button type="button" className={button} disabled={!props.canOlder} onClick={props.onOlder}>
        Older →
      </button>
    </nav>
  );
}

function LedgerEmpty({ filter, olderPage }: { filter: LedgerFilter; olderPage: boolean }) {
  if (olderPage) {
    return (
      <EmptyState title="No older operations.">
        You have reached the end of the ledger for these filters. Go back to newer pages to see the rest.
      </EmptyState>
    );
  }
  if (hasFilters(filter)) {
    return (
      <EmptyState title="No operations match these filters.">
        Operations appear here when their phase, tool, effect class, run, agent and age all match what is set above.
        Filters match exactly; clear one to widen the search.
      </EmptyState>
    );
  }
  return (
    <EmptyState title="The ledger has no operations yet.">
      Every tool call an agent makes through opledger is written here before its request leaves, with its phase, tool,
      effect class, run and age. Once an agent runtime plans its first operation through the ledger API or the executor,
      it appears at the top of this list.
    </EmptyState>
  );
}

export function OperationsGrid({
  rows,
  busy,
  selection,
}: {
  rows: OperationRow[];
  busy: boolean;
  /** Checkboxes for bulk actions, for a person who may act. */
  selection?: BulkSelection;
}) {
  const ids = rows.map((op) => op.id);
  const columns = selection
    ? [{ label: <SelectPageBox selection={selection} ids={ids} />, fit: true }, ...COLUMNS]
    : COLUMNS;
  return (
    <div className="overflow-x-auto rounded-lg border border-line">
      <table
        aria-label="Operations"
        aria-busy={busy}
        className={`w-full border-collapse text-left ${busy ? "opacity-60" : ""}`}
      >
        <TableHeader columns={columns} look="caps" inset="px-2" />
        <tbody>
          {rows.map((op) => (
            <tr
              key={op.id}
              data-operation-row={op.id}
              className="border-b border-line last:border-b-0 hover:bg-surface-muted"
            >
              {selection ? (
                <td className="px-2 py-1.5">
                  <SelectRowBox selection={selection} id={op.id} />
                </td>
              ) : null}
              <td className="px-2 py-1.5">
                <OperationLink id={op.id} />
              </td>
              <td className="px-2 py-1.5">
                <ToolName tool={op.tool} version={op.contractVersion} via={op.via} />
              </td>
              <td className="px-2 py-1.5">
                <EffectClassText effect={op.effect} />
              </td>
              <td className="px-2 py-1.5">
                <PhaseBadge phase={op.phase} />
              </td>
              <td className="px-2 py-1.5">
                <AttemptCount attempt={op.attempt} maxAttempts={op.maxAttempts} />
              </td>
              <td className="px-2 py-1.5" title={op.decision.reason}>
                <DecisionBadge action={op.decision.action} />
                <span className="sr-only">: {op.decision.reason}</span>
              </td>
              <td className="px-2 py-1.5">
                <RunAgent runId={op.runId} agentId={op.agentId} />
              </td>
              <td className="px-2 py-1.5 text-ink-muted">
                <RelativeTime live value={op.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
