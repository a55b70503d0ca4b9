"use client";
// One counter over time as a bar chart, with its text alternative: a one-sentence summary and the non-zero buckets as a
// table.
import { useId } from "react";
import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis } from "recharts";
import { bucketLabel, clockUtc, summarise, type ChartPoint } from "./chart-points";

export interface MetricChartProps {
  title: string;
  /** What one count means, in the operator's words. */
  meaning: string;
  points: ChartPoint[];
  bucketMs: number;
  windowLabel: string;
  /** The day (YYYY-MM-DD, UTC) the window ends on; buckets on other days are labelled with their date. */
  today: string;
  /** A CSS colour, e.g. "var(--tone-amber-solid)". */
  color: string;
  /** A shared top of the y axis, so small multiples compare at a glance. */
  yMax?: number;
  height?: number;
  /** Small multiples hide their y axis labels except the first. */
  compact?: boolean;
}

const TICK = { fill: "var(--ink-subtle)", fontSize: 11 };

export function MetricChart({
  title,
  meaning,
  points,
  bucketMs,
  windowLabel,
  today,
  color,
  yMax,
  height = 150,
  compact = false,
}: MetricChartProps) {
  const id = useId();
  const summary = summarise(points, bucketMs, windowLabel, today);
  const total = points.reduce((n, p) => n + p.value, 0);
  const nonZero = points.filter((p) => p.value > 0);
  return (
    <figure
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-summary`}
      className="flex min-w-0 flex-col gap-1.5"
      data-chart={title}
    >
      <figcaption className="flex items-baseline justify-between gap-2">
        <span
          id={`${id}-title`}
          className={compact ? "font-mono text-[12px] font-medium text-ink" : "font-medium text-ink"}
        >
          {title}
        </span>
        <span className="text-xs text-ink-muted tabular-nums">
          <span className="text-[15px] font-semibold text-ink">{total}</span> {compact ? "" : windowLabel}
        </span>
      </figcaption>
      {compact ? null : <p className="text-xs leading-snug text-ink-subtle">{meaning}</p>}
      {/* The drawing repeats the table below for sighted users; assistive technology reads the summary and the table. */}
      <div aria-hidden="true" className="w-full" style={{ height }}>
        <BarChart
          responsive
          style={{ width: "100%", height }}
          data={points}
          margin={{ top: 4, right: 4, bottom: 0, left: compact ? -24 : -12 }}
          accessibilityLayer={false}
          barCategoryGap={1}
        >
          <CartesianGrid vertical={false} stroke="var(--line)" />
          <XAxis
            dataKey="start"
            tickFormatter={(v: string) => clockUtc(v)}
            tick={TICK}
            tickLine={false}
            axisLine={{ stroke: "var(--line-strong)" }}
            minTickGap={compact ? 24 : 36}
          />
          <YAxis
            allowDecimals={false}
            domain={[0, yMax !== undefined ? Math.max(yMax, 1) : (max: number) => Math.max(max, 1)]}
            tick={compact ? false : TICK}
            tickLine={false}
            axisLine={false}
            width={compact ? 24 : 36}
          />
          <Tooltip
            cursor={{ fill: "var(--surface-sunken)" }}
            isAnimationActive={false}
            labelFormatter={(label) => (typeof label === "string" ? bucketLabel(label, bucketMs, today) : "")}
            formatter={(value) => [String(value), title]}
            contentStyle={{
              background: "var(--surface)",
              border: "1px solid var(--line-strong)",
              borderRadius: 6,
              fontSize: 12,
              color: "var(--ink)",
            }}
            labelStyle={{ color: "var(--ink-muted)" }}
          />
          <Bar dataKey="value" fill={color} isAnimationActive={false} radius={[2, 2, 0, 0]} />
        </BarChart>
      </div>
      <p id={`${id}-summary`} className={compact ? "sr-only" : "text-xs text-ink-muted"}>
        {summary}
      </p>
      {nonZero.length > 0 ? (
        <details className="text-xs">
          <summary className="cursor-pointer text-ink-muted hover:text-ink">
            Show as a table<span className="sr-only">: {title}</span>
          </summary>
          <table className="mt-1 w-full border-collapse">
            <caption className="sr-only">
              {title} per {bucketMs >= 3_600_000 ? `${bucketMs / 3_600_000} h` : `${bucketMs / 60_000} min`},{" "}
              {windowLabel}; intervals with none are left out
            </caption>
            <thead>
              <tr className="border-b border-line text-ink-muted">
                <th scope="col" className="py-1 pr-2 text-left font-medium">
                  Interval (UTC)
                </th>
                <th scope="col" className="py-1 text-right font-medium">
                  Count
                </th>
              </tr>
            </thead>
            <tbody>
              {nonZero.map((p) => (
                <tr key={p.start} className="border-b border-line last:border-b-0">
                  <td className="py-0.5 pr-2 tabular-nums">{bucketLabel(p.start, bucketMs, today)}</td>
                  <td className="py-0.5 text-right tabular-nums">{p.value}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      ) : null}
    </figure>
  );
}
