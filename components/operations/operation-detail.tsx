"use client";
// The operation page: the gate's decision and the actions on top, then identity, the timeline, the arguments and the
// evidence.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { OperationDetail as Operation } from "@/lib/ledger/reads/operations";
import { consoleKeys, fetchOperation, keepPolling, LIVE_INTERVAL_MS } from "@/components/console-api";
import { DecisionBadge } from "./decision-badge";
import { ListError, LiveStatus } from "./list-states";
import { EffectClassText, ViaMark } from "./operation-cells";
import { OperationActions } from "./operation-actions";
import { Identity } from "./operation-identity";
import { RepeatLink, ReplayLinks } from "./operation-links";
import { Outcome } from "./operation-outcome";
import { OperationTimeline } from "./operation-timeline";
import { PhaseBadge } from "./phase-badge";
import { ReconciliationEvidence } from "./reconciliation-evidence";
import { ReplayButton } from "./replay-dialog";
import { TraceLink } from "./trace-link";
import { WouldHavePanel } from "./would-have-panel";

export function OperationDetail({
  initial,
  canAct,
  fourEyesTied,
  traceUrl,
}: {
  initial: Operation;
  canAct: boolean;
  /** Four-eyes keeps this person from approving (a key bound to them runs it, or they asked): no approval offered. */
  fourEyesTied: boolean;
  /** OPLEDGER_TRACE_URL: the template of the Trace links; null shows the trace ids to copy. */
  traceUrl: string | null;
}) {
  const query = useQuery({
    queryKey: consoleKeys.detail(initial.id),
    queryFn: ({ signal }) => fetchOperation(initial.id, signal),
    initialData: initial,
    refetchInterval: (q) => (keepPolling(q.state.error) ? LIVE_INTERVAL_MS : false),
  });
  const op = query.data;

  return (
    <article aria-labelledby="operation-title">
      <nav aria-label="Breadcrumb" className="mb-2 text-xs text-ink-muted">
        <Link href="/" className="underline underline-offset-4 hover:text-ink">
          Ledger
        </Link>{" "}
        / operation
      </nav>
      <header className="mb-4 flex flex-wrap items-start justify-between gap-3 border-b border-line pb-4">
        <div className="min-w-0">
          <div className="flex flex-wrap items-center gap-3">
            <h1 id="operation-title" className="font-mono text-lg font-semibold tracking-tight text-ink">
              {op.tool}
            </h1>
            <PhaseBadge phase={op.phase} className="text-[13px]" />
            <EffectClassText effect={op.effect} />
            <ViaMark via={op.via} />
          </div>
          <p className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1 text-ink-muted">
            <span className="font-mono text-[12.5px] break-all" translate="no">
              <span className="sr-only">Operation id </span>
              {op.id}
            </span>
            <span className="text-[13px]">
              <TraceLink template={traceUrl} traceId={op.traceId} of="the call that planned it" />
            </span>
          </p>
          <ReplayLinks op={op} />
          <RepeatLink op={op} />
        </div>
        <LiveStatus
          available
          paused={false}
          fetching={query.isFetching}
          stale={query.isRefetchError}
          updatedAt={query.dataUpdatedAt}
        />
      </header>

      {query.isRefetchError ? (
        <div className="mb-4">
          <ListError
            error={query.error}
            what="the latest state of this operation"
            onRetry={() => void query.refetch()}
          />
        </div>
      ) : null}

      <section
        aria-labelledby="decision-title"
        className="mb-6 rounded-xl border border-line-strong bg-surface-muted px-5 py-4 shadow-xs"
        data-decision-panel={op.decision.action}
      >
        <h2 id="decision-title" className="mb-2 text-[11px] font-semibold tracking-wide text-ink-subtle uppercase">
          What the retry gate says now
        </h2>
        <div className="flex flex-wrap items-start gap-3">
          <DecisionBadge action={op.decision.action} className="mt-0.5 text-[13px]" />
          <p className="max-w-3xl flex-1 text-[15px] leading-relaxed text-ink" data-decision-reason>
            {op.decision.reason}
          </p>
        </div>
        <Outcome op={op} />
        <div className="mt-4">
          <OperationActions operation={op} canAct={canAct} fourEyesTied={fourEyesTied} />
        </div>
        <div className="mt-3 empty:hidden">
          <ReplayButton op={op} canAct={canAct} />
        </div>
      </section>

      {op.wouldHave ? <WouldHavePanel tool={op.tool} wouldHave={op.wouldHave} /> : null}

      <div className="grid gap-6 xl:grid-cols-[minmax(0,1fr)_26rem]">
        <section aria-labelledby="timeline-title" className="min-w-0 xl:order-1">
          <h2 id="timeline-title" className="mb-3 text-[15px] font-semibold text-ink">
            Timeline{" "}
            <span className="text-xs font-normal text-ink-subtle">
              {op.attempts.length} attempt{op.attempts.length === 1 ? "" : "s"}, {op.audit.length} recorded event
              {op.audit.length === 1 ? "" : "s"}, oldest first
            </span>
          </h2>
          <OperationTimeline attempts={op.attempts} audit={op.audit} traceUrl={traceUrl} />
        </section>
        <div className="flex min-w-0 flex-col gap-6 xl:order-2">
          <Identity op={op} />
          <JsonSection title="Arguments" value={op.args} open={JSON.stringify(op.args ?? null).length < 600} />
          {op.evidenceDetail !== null ? <ReconciliationEvidence detail={op.evidenceDetail} /> : null}
        </div>
      </div>
    </article>
  );
}

function JsonSection({ title, value, open }: { title: string; value: unknown; open: boolean }) {
  return (
    <section>
      <details open={open} className="group rounded-lg border border-line">
        <summary className="cursor-pointer rounded-lg px-4 py-2.5 text-[15px] font-semibold text-ink select-none hover:bg-surface-muted">
          {title}
        </summary>
        <pre
          className={
            "max-h-[32rem] overflow-auto border-t border-line bg-surface-sunken px-4 py-3 font-mono text-[12px] " +
            "leading-relaxed text-ink"
          }
        >
          {JSON.stringify(value, null, 2)}
        </pre>
      </details>
    </section>
  );
}
