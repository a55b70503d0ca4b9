"use client";
// A work queue (Unknowns, Approvals): one phase in the server's order (Unknowns longest waiting first, Approvals soonest
// to expire first), paged, refreshed every 5 s.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { BulkBar } from "@/components/bulk/bulk-bar";
import { SelectPageBox, SelectRowBox } from "@/components/bulk/select-cells";
import { useBulkSelection, type BulkSelection } from "@/components/bulk/use-bulk-selection";
import type { BulkActionName } from "@/lib/ledger/bulk/request";
import { EmptyState } from "@/components/ui/empty-state";
import { TableHeader } from "@/components/ui/table-header";
import { assertNever } from "@/lib/retry-gate/exhaustive";
import { consoleGet, consoleKeys, fetchCounts, keepPolling, LIVE_INTERVAL_MS } from "@/components/console-api";
import { Age } from "./age";
import { ApprovalDeadline, QuorumCount } from "./approval-deadline";
import { DecisionBadge } from "./decision-badge";
import { ListError, LiveStatus, TableSkeleton } from "./list-states";
import { AttemptCount, EffectClassText, LastError, OperationLink, RunAgent, ToolName } from "./operation-cells";
import type { OperationPage, OperationRow } from "@/lib/console/operation-row";

export type QueueKind = "unknowns" | "approvals";

/** Rows per page of a queue. */
const QUEUE_PAGE_SIZE = 200;

function fetchQueue(
  phase: QueueText["phase"],
  cursor: string | undefined,
  signal: AbortSignal,
): Promise<OperationPage> {
  const params = new URLSearchParams({ phase, limit: String(QUEUE_PAGE_SIZE) });
  if (cursor) params.set("cursor", cursor);
  return consoleGet<OperationPage>(`/api/console/queue?${params.toString()}`, signal);
}

interface QueueText {
  phase: "UNKNOWN" | "AWAITING_APPROVAL";
  what: string;
  ageColumn: string;
  /** The pager's button back to the first page, named after the order. */
  firstPage: string;
  emptyTitle: string;
  empty: string;
  countOf: (n: number) => string;
  /** The bulk actions a person may take on this queue's phase (the preview still checks each operation). */
  bulkActions: readonly BulkActionName[];
  /** "All that match" on this queue, for the action bar. */
  everyOne: string;
}

function queueText(kind: QueueKind): QueueText {
  switch (kind) {
    case "unknowns":
      return {
        phase: "UNKNOWN",
        what: "the unknowns queue",
        ageColumn: "Unknown for",
        firstPage: "Longest waiting",
        emptyTitle: "No operations are waiting for reconciliation.",
        empty:
          "An operation lands here when its outcome was lost after it was dispatched — a timeout, a crash, a " +
          "lease that ran out — and someone must look the effect up before anything is retried. Empty means " +
          "every dispatched call has a known outcome.",
        countOf: (n) => `${n} operation${n === 1 ? "" : "s"} with an unknown outcome`,
        bulkActions: ["lookup_reconcile", "reconcile"],
        everyOne: "every UNKNOWN operation",
      };
    case "approvals":
      return {
        phase: "AWAITING_APPROVAL",
        what: "the approvals queue",
        ageColumn: "Time left",
        firstPage: "Soonest to expire",
        emptyTitle: "No operations are waiting for approval.",
        empty:
          "An operation lands here when repeating it could create a new effect — a non-retryable tool that " +
          "failed, a contract that requires approval, or a spent retry budget. The request that expires soonest " +
          "is at the top: one nobody decides in time expires and is never approved. Approving grants exactly " +
          "one more attempt, and every decision is recorded with your name and reason.",
        countOf: (n) => `${n} operation${n === 1 ? "" : "s"} waiting for a person`,
        bulkActions: ["approve", "reject"],
        everyOne: "every operation waiting for approval",
      };
    default:
      return assertNever(kind, "queue");
  }
}

/** `canAct`: the person may act (operator role); a viewer gets no checkboxes, and every action checks again anyway. */
export function OperationQueue({ kind, canAct = false }: { kind: QueueKind; canAct?: boolean }) {
  const text = queueText(kind);
  const selection = useBulkSelection();
  // Cursors of the pages stepped through; the last one is the page shown, none on the first page.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const query = useQuery({
    queryKey: [...consoleKeys.operations, "queue", text.phase, cursor ?? null],
    queryFn: ({ signal }) => fetchQueue(text.phase, cursor, signal),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (keepPolling(q.state.error) ? LIVE_INTERVAL_MS : false),
  });
  // The same query as the navigation badges, so the two numbers never disagree for long; fetched afresh on arrival,
  // beside the queue itself, so a count from the page before does not contradict the rows.
  const counts = useQuery({
    queryKey: consoleKeys.counts,
    queryFn: ({ signal }) => fetchCounts(signal),
    refetchOnMount: "always",
    refetchInterval: (q) => (keepPolling(q.state.error) ? LIVE_INTERVAL_MS : false),
  });
  const rows = query.data?.items ?? [];
  const nextCursor = query.data?.nextCursor ?? null;
  const first = cursors.length * QUEUE_PAGE_SIZE + 1;
  const total = counts.data ? (kind === "unknowns" ? counts.data.unknown : counts.data.awaitingApproval) : undefined;

  return (
    <>
      <div className="mb-2 flex flex-wrap items-center justify-between gap-3">
        <p className="text-[15px] font-semibold text-ink tabular-nums" data-queue-count={total ?? ""}>
          {total === undefined ? "\u00a0" : text.countOf(total)}
        </p>
        <LiveStatus
          available
          paused={false}
          fetching={query.isFetching}
          stale={query.isRefetchError}
          updatedAt={query.dataUpdatedAt}
        />
      </div>
      {canAct ? (
        <BulkBar
          selection={selection}
          actions={text.bulkActions}
          pageIds={rows.map((op) => op.id)}
          matchingTarget={() => ({ filter: { phase: text.phase } })}
          matchingLabel={text.everyOne}
        />
      ) : null}
      {query.isPending ? (
        <TableSkeleton columns={7} rows={5} label={`Loading ${text.what}…`} />
      ) : query.isError && !query.data ? (
        <ListError error={query.error} what={text.what} onRetry={() => void query.refetch()} />
      ) : rows.length === 0 ? (
        <EmptyState title={text.emptyTitle}>{text.empty}</EmptyState>
      ) : (
        <QueueTable kind={kind} ageColumn={text.ageColumn} rows={rows} selection={canAct ? selection : undefined} />
      )}
      {rows.length > 0 && (cursors.length > 0 || nextCursor) ? (
        <nav aria-label={`Pages of ${text.what}`} className="mt-2 flex items-center gap-1.5 text-xs text-ink-muted">
          <button type="button" className={PAGER_BUTTON} disabled={cursors.length === 0} onClick={() => setCursors([])}>
            {text.firstPage}
          </button>
          <button
            type="button"
            className={PAGER_BUTTON}
            disabled={cursors.length === 0}
            onClick={() => setCursors((c) => c.slice(0, -1))}
          >
            ← Previous
          </button>
          <span className="px-1.5 tabular-nums" aria-live="polite">
            {first}–{first + rows.length - 1}
          </span>
          <button
            type="button"
            className={PAGER_BUTTON}
            disabled={!nextCursor || query.isPlaceholderData}
            onClick={() => nextCursor && setCursors((c) => [...c, nextCursor])}
          >
            Next →
          </button>
        </nav>
      ) : null}
    </>
  );
}

const PAGER_BUTTON =
  "h-7 rounded-md px-2.5 text-xs font-medium text-ink ring-1 ring-line-strong hover:bg-surface-muted " +
  "disabled:cursor-not-allowed disabled:text-ink-subtle disabled:opacity-60 disabled:hover:bg-transparent";

function QueueTable({
  kind,
  ageColumn,
  rows,
  selection,
}: {
  kind: QueueKind;
  ageColumn: string;
  rows: OperationRow[];
  /** Checkboxes for bulk actions, for a person who may act. */
  selection?: BulkSelection;
}) {
  const detailColumn = kind === "unknowns" ? "Last error" : "Why the gate asks a person";
  const ids = rows.map((op) => op.id);
  return (
    <div className="overflow-x-auto rounded-lg border border-line">
      <table
        aria-label={kind === "unknowns" ? "Unknown operations" : "Operations awaiting approval"}
        className="w-full border-collapse text-left"
      >
        <TableHeader
          look="caps"
          columns={[
            ...(selection ? [{ label: <SelectPageBox selection={selection} ids={ids} />, fit: true }] : []),
            ageColumn,
            { label: "Operation", wrap: true },
            { label: "Tool", wrap: true },
            "Effect class",
            { label: "Attempts", wrap: true },
            { label: detailColumn, wrap: true },
            "Run / agent",
          ]}
        />
        <tbody>
          {rows.map((op) => (
            <tr
              key={op.id}
              data-operation-row={op.id}
              className="border-b border-line align-top last:border-b-0 hover:bg-surface-muted"
            >
              {selection ? (
                <td className="px-3 py-2.5">
                  <SelectRowBox selection={selection} id={op.id} />
                </td>
              ) : null}
              <td className="px-3 py-2">
                {kind === "unknowns" ? (
                  <Age since={op.updatedAt} className="text-[15px] font-semibold text-phase-unknown-ink" />
                ) : (
                  // Time left, not time waited: an approval given towards a quorum moves updatedAt, the deadline stays.
                  <ApprovalDeadline expiresAt={op.approvalExpiresAt} className="text-[15px] font-semibold" />
                )}
              </td>
              <td className="px-3 py-2">
                <OperationLink id={op.id} />
              </td>
              <td className="px-3 py-2">
                <ToolName tool={op.tool} version={op.contractVersion} via={op.via} />
              </td>
              <td className="px-3 py-2">
                <EffectClassText effect={op.effect} />
              </td>
              <td className="px-3 py-2">
                <AttemptCount attempt={op.attempt} maxAttempts={op.maxAttempts} />
              </td>
              <td className="min-w-[22rem] px-3 py-2">
                {kind === "unknowns" ? (
                  <LastError error={op.lastError} />
                ) : op.decision.action === "APPROVAL" ? (
                  <span className="flex flex-col items-start gap-1">
                    <span className="text-ink">{op.decision.reason}</span>
                    <QuorumCount approvals={op.approvals} />
                  </span>
                ) : (
                  // The queue is for approvals; anything else the gate says now is worth a second look.
                  <span className="flex items-start gap-2">
                    <DecisionBadge action={op.decision.action} className="shrink-0" />
                    <span className="text-ink">{op.decision.reason}</span>
                  </span>
                )}
              </td>
              <td className="px-3 py-2">
                <RunAgent runId={op.runId} agentId={op.agentId} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
