"use client";
// Retries per tool over the window, the tools with most first, on one shared scale; a tool whose retries jumped in the
// current five minutes (the retries.spike rule) is marked, in words as well as colour.
import type { ConsoleMetrics } from "@/lib/ledger/reads/metrics";
import type { MetricSeries } from "@/lib/ledger/reads/metrics-series";
import { MetricChart } from "./metric-chart";

/** Small multiples stay readable up to this many; the rest are listed with their totals. */
const CHARTED_TOOLS = 8;

export function ToolRetriesSection({
  series,
  spikes,
  windowLabel,
}: {
  series: MetricSeries;
  spikes: ConsoleMetrics["spikes"];
  windowLabel: string;
}) {
  const today = series.to.slice(0, 10);
  const spikeOf = new Map(spikes.map((s) => [s.tool, s]));
  const charted = series.toolRetries.slice(0, CHARTED_TOOLS);
  const rest = series.toolRetries.slice(CHARTED_TOOLS);
  const yMax = Math.max(1, ...charted.flatMap((t) => t.counts));
  // A spiking tool with no retries in the window's buckets yet (it cannot happen, but the mark must not be lost).
  const unlisted = spikes.filter((s) => !series.toolRetries.some((t) => t.tool === s.tool));
  return (
    <section
      aria-labelledby="tool-retries-heading"
      className="flex flex-col gap-3 rounded-lg border border-line p-3"
      data-testid="tool-retries"
    >
      <div>
        <h2 id="tool-retries-heading" className="font-medium text-ink">
          Retries per tool
        </h2>
        <p className="text-xs leading-snug text-ink-subtle">
          Attempts after the first, per tool, on one shared scale. A sudden run of retries against one tool is the
          earliest sign of a failing dependency: a tool is marked when its retries in the current five minutes are at
          least five times its average over the hour before (and at least five).
        </p>
      </div>
      {series.toolRetries.length === 0 && unlisted.length === 0 ? (
        <p className="text-[13px] text-ink-muted">No retries {windowLabel}.</p>
      ) : (
        <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          {charted.map((t) => {
            const spike = spikeOf.get(t.tool);
            return (
              <div
                key={t.tool}
                className={`flex min-w-0 flex-col gap-1 rounded-md p-1.5 ${spike ? "ring-2 ring-phase-failed ring-inset" : ""}`}
                data-tool-retries={t.tool}
                data-spike={spike ? "true" : undefined}
              >
                <MetricChart
                  title={t.tool}
                  meaning={`Retries of ${t.tool}.`}
                  points={series.buckets.map((b, i) => ({ start: b.start, value: t.counts[i] ?? 0 }))}
                  bucketMs={series.bucketMs}
                  windowLabel={windowLabel}
                  today={today}
                  color={spike ? "var(--tone-red-solid)" : "var(--tone-blue-solid)"}
                  yMax={yMax}
                  height={80}
                  compact
                />
                {spike ? <SpikeNote spike={spike} /> : null}
              </div>
            );
          })}
          {unlisted.map((spike) => (
            <div key={spike.tool} className="rounded-md p-1.5 ring-2 ring-phase-failed ring-inset" data-spike="true">
              <p className="font-mono text-[12px] font-medium text-ink">{spike.tool}</p>
              <SpikeNote spike={spike} />
            </div>
          ))}
        </div>
      )}
      {rest.length > 0 ? (
        <p className="text-xs text-ink-muted">
          Also retried {windowLabel}:{" "}
          {rest.map((t, i) => (
            <span key={t.tool}>
              {i > 0 ? ", " : ""}
              <span className="font-mono">{t.tool}</span> {t.total}
              {spikeOf.has(t.tool) ? " (spike)" : ""}
            </span>
          ))}
          .
        </p>
      ) : null}
    </section>
  );
}

function SpikeNote({ spike }: { spike: ConsoleMetrics["spikes"][number] }) {
  return (
    <p className="text-xs font-medium text-phase-failed-ink" role="note">
      Spike: {spike.retries} retries since {spike.windowStart.slice(11, 16)} UTC, against {spike.hourAverage.toFixed(1)}{" "}
      per five minutes over the hour before.
    </p>
  );
}
