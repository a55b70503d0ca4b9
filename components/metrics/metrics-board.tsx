"use client";
// The metrics page's live part over the chosen window: where the wall-clock went, four counters, retries by effect class
// and per tool (spikes marked), and the outcome mix with drift, with the all-time totals beside them.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Notice } from "@/components/ui/form-controls";
import { consoleGet, ConsoleApiError, keepPolling } from "@/components/console-api";
import { RelativeTime } from "@/components/ui/relative-time";
import type { ConsoleMetrics, MetricsSnapshot } from "@/lib/ledger/reads/metrics";
import type { ActionSeries, MetricSeries, MetricWindow } from "@/lib/ledger/reads/metrics-series";
import { EFFECT_CLASSES } from "@/lib/retry-gate/types";
import type { ChartPoint } from "./chart-points";
import { MetricChart } from "./metric-chart";
import { OutcomeMixSection } from "./outcome-mix";
import { TimeSplitSection } from "./time-split";
import { ToolRetriesSection } from "./tool-retries";

export type MetricsResponse = ConsoleMetrics;

const REFRESH_MS = 30_000;

export const WINDOW_LABEL: Record<MetricWindow, string> = { "1h": "in the last hour", "24h": "in the last 24 hours" };

interface CounterSpec {
  key: ActionSeries;
  title: string;
  meaning: string;
  color: string;
  total: (s: MetricsSnapshot) => number;
  prometheus: string;
}

// Colours follow the phase colours: lost outcomes amber, proven outcomes green, refusals red, waiting for a person
// violet.
const COUNTERS: CounterSpec[] = [
  {
    key: "unknownOutcomes",
    title: "Unknown outcomes",
    meaning:
      "Calls whose outcome was lost after they left (a timeout, a crash) and must be looked up before anything is repeated.",
    color: "var(--tone-amber-solid)",
    total: (s) => s.unknownOutcomesTotal,
    prometheus: "opledger_unknown_outcomes_total",
  },
  {
    key: "reconciliations",
    title: "Reconciliations",
    meaning: "Lost outcomes that a lookup or a person proved, as applied or as not applied.",
    color: "var(--tone-green-solid)",
    total: (s) => s.reconciliationsTotal,
    prometheus: "opledger_reconciliations_total",
  },
  {
    key: "duplicateRejections",
    title: "Duplicate rejections",
    meaning: "Plans refused because an idempotency key was reused with different arguments.",
    color: "var(--tone-red-solid)",
    total: (s) => s.duplicateRejectionsTotal,
    prometheus: "opledger_duplicate_rejections_total",
  },
  {
    key: "approvalInterruptions",
    title: "Approval interruptions",
    meaning: "Times the retry gate stopped an operation to ask a person for approval.",
    color: "var(--tone-violet-solid)",
    total: (s) => s.approvalInterruptionsTotal,
    prometheus: "opledger_approval_interruptions_total",
  },
];

export function metricsKey(window: MetricWindow) {
  return ["console", "metrics", window] as const;
}

export function MetricsBoard({ window, initial }: { window: MetricWindow; initial: MetricsResponse }) {
  const query = useQuery({
    queryKey: metricsKey(window),
    queryFn: ({ signal }) => consoleGet<MetricsResponse>(`/api/console/metrics?window=${window}`, signal),
    initialData: initial,
    refetchInterval: (q) => (keepPolling(q.state.error) ? REFRESH_MS : false),
  });
  const { series, snapshot, at, time, mix, drift, spikes } = query.data;
  const windowLabel = WINDOW_LABEL[window];
  const today = series.to.slice(0, 10);
  const pointsOf = (pick: (b: MetricSeries["buckets"][number]) => number): ChartPoint[] =>
    series.buckets.map((b) => ({ start: b.start, value: pick(b) }));
  const retryMax = Math.max(1, ...series.buckets.flatMap((b) => EFFECT_CLASSES.map((e) => b.retries[e])));

  return (
    <div className="flex flex-col gap-5">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <WindowPicker current={window} />
        <p className="text-xs text-ink-subtle" aria-live="polite">
          {query.isFetching
            ? "Refreshing…"
            : `Counted at ${at.slice(11, 19)} UTC; refreshes every 30 s. Times are UTC.`}
        </p>
      </div>

      {query.isError ? (
        <Notice tone="error" title="Could not refresh the metrics" alert>
          {query.error instanceof ConsoleApiError ? query.error.message : "The console server did not answer."} The
          charts show what was loaded <RelativeTime value={at} />.
        </Notice>
      ) : null}

      <TimeSplitSection time={time} windowLabel={windowLabel} />

      <div className="grid gap-4 lg:grid-cols-2">
        {COUNTERS.map((c) => (
          <section key={c.key} aria-label={c.title} className="flex flex-col gap-2 rounded-lg border border-line p-3">
            <MetricChart
              title={c.title}
              meaning={c.meaning}
              points={pointsOf((b) => b[c.key])}
              bucketMs={series.bucketMs}
              windowLabel={windowLabel}
              today={today}
              color={c.color}
            />
            <dl className="flex flex-wrap gap-x-5 gap-y-1 border-t border-line pt-2 text-xs text-ink-muted">
              <div className="flex gap-1.5">
                <dt>All time</dt>
                <dd className="font-medium text-ink tabular-nums">{c.total(snapshot)}</dd>
              </div>
              {c.key === "unknownOutcomes" ? (
                <div className="flex gap-1.5">
                  <dt>In UNKNOWN now</dt>
                  <dd className="font-medium text-ink tabular-nums">
                    <Link
                      href="/unknowns"
                      className="underline decoration-line-strong underline-offset-4 hover:decoration-ink"
                    >
                      {snapshot.unknownOutcomes}
                    </Link>
                  </dd>
                </div>
              ) : null}
              <div className="ml-auto font-mono text-[11px] text-ink-subtle">{c.prometheus}</div>
            </dl>
          </section>
        ))}
      </div>

      <section aria-labelledby="retries-heading" className="flex flex-col gap-3 rounded-lg border border-line p-3">
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <div>
            <h2 id="retries-heading" className="font-medium text-ink">
              Retries by effect class
            </h2>
            <p className="text-xs leading-snug text-ink-subtle">
              Attempts after the first, by the side-effect class of their tool, on one shared scale. Many retries of
              NON_RETRYABLE or UNKNOWN tools mean people are approving repeats by hand.
            </p>
          </div>
          <span className="font-mono text-[11px] text-ink-subtle">opledger_retries_total{"{effect}"}</span>
        </div>
        <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-5">
          {EFFECT_CLASSES.map((effect) => (
            <div key={effect} className="flex min-w-0 flex-col gap-1">
              <MetricChart
                title={effect}
                meaning={`Retries of ${effect} tools.`}
                points={pointsOf((b) => b.retries[effect])}
                bucketMs={series.bucketMs}
                windowLabel={windowLabel}
                today={today}
                color="var(--tone-blue-solid)"
                yMax={retryMax}
                height={96}
                compact
              />
              <p className="text-xs text-ink-muted">
                All time{" "}
                <span className="font-medium text-ink tabular-nums">{snapshot.retriesByEffect[effect] ?? 0}</span>
              </p>
            </div>
          ))}
        </div>
      </section>

      <ToolRetriesSection series={series} spikes={spikes} windowLabel={windowLabel} />

      <OutcomeMixSection mix={mix} drift={drift} today={today} windowLabel={windowLabel} />
    </div>
  );
}

function WindowPicker({ current }: { current: MetricWindow }) {
  const options: { value: MetricWindow; label: string }[] = [
    { value: "1h", label: "Last hour" },
    { value: "24h", label: "Last 24 hours" },
  ];
  return (
    <nav aria-label="Time window" className="inline-flex rounded-md p-0.5 ring-1 ring-line-strong ring-inset">
      {options.map((o) => (
        <Link
          key={o.value}
          href={`/metrics?window=${o.value}`}
          aria-current={o.value === current ? "page" : undefined}
          scroll={false}
          className={
            "rounded px-3 py-1 text-[13px] " +
            (o.value === current
              ? "bg-ink font-medium text-surface"
              : "text-ink-muted hover:bg-surface-sunken hover:text-ink")
          }
        >
          {o.label}
        </Link>
      ))}
    </nav>
  );
}
