"use client";
// Drift: the mix of outcomes per effect class over the window (confirmed, unknown, failed, sent for approval), and the
// tools whose share of UNKNOWN outcomes rose above their week's level, each with the rule's reason in words.
import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis } from "recharts";
import type { OutcomeMix, Outcome, ToolDrift } from "@/lib/ledger/reads/drift";
import { EFFECT_CLASSES, type EffectClass } from "@/lib/retry-gate/types";
import { bucketLabel, clockUtc } from "./chart-points";

const OUTCOME_LOOK: Record<Outcome, { label: string; color: string }> = {
  confirmed: { label: "Confirmed", color: "var(--tone-green-solid)" },
  unknown: { label: "Unknown", color: "var(--tone-amber-solid)" },
  failed: { label: "Failed", color: "var(--tone-red-solid)" },
  approval: { label: "Sent for approval", color: "var(--tone-violet-solid)" },
};
const OUTCOME_ORDER: Outcome[] = ["confirmed", "unknown", "failed", "approval"];
const TICK = { fill: "var(--ink-subtle)", fontSize: 11 };

function EffectMix({ mix, effect, today }: { mix: OutcomeMix; effect: EffectClass; today: string }) {
  const totals = mix.totals[effect];
  const all = OUTCOME_ORDER.reduce((n, o) => n + totals[o], 0);
  const data = mix.buckets.map((b) => ({ start: b.start, ...b.byEffect[effect] }));
  const summary =
    all === 0
      ? "No outcomes."
      : OUTCOME_ORDER.filter((o) => totals[o] > 0)
          .map((o) => `${totals[o]} ${OUTCOME_LOOK[o].label.toLowerCase()} (${Math.round((totals[o] / all) * 100)}%)`)
          .join(", ") + ".";
  return (
    <figure aria-label={`Outcome mix of ${effect}`} className="flex min-w-0 flex-col gap-1" data-outcome-mix={effect}>
      <figcaption className="flex items-baseline justify-between gap-2">
        <span className="font-mono text-[12px] font-medium text-ink">{effect}</span>
        <span className="text-xs text-ink-muted tabular-nums">{all}</span>
      </figcaption>
      {/* A class with no outcomes draws nothing: the summary says so, and the page stays light to render. */}
      {all === 0 ? null : (
        <div aria-hidden="true" className="w-full" style={{ height: 96 }}>
          <BarChart
            responsive
            style={{ width: "100%", height: 96 }}
            data={data}
            margin={{ top: 4, right: 4, bottom: 0, left: -24 }}
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
              minTickGap={24}
            />
            <YAxis allowDecimals={false} tick={false} tickLine={false} axisLine={false} width={24} />
            <Tooltip
              isAnimationActive={false}
              labelFormatter={(label) => (typeof label === "string" ? bucketLabel(label, mix.bucketMs, today) : "")}
              contentStyle={{
                background: "var(--surface)",
                border: "1px solid var(--line-strong)",
                borderRadius: 6,
                fontSize: 12,
                color: "var(--ink)",
              }}
            />
            {OUTCOME_ORDER.map((o) => (
              <Bar
                key={o}
                dataKey={o}
                name={OUTCOME_LOOK[o].label}
                stackId="mix"
                fill={OUTCOME_LOOK[o].color}
                isAnimationActive={false}
              />
            ))}
          </BarChart>
        </div>
      )}
      <p className="text-xs text-ink-muted">{summary}</p>
    </figure>
  );
}

const percent = (share: number | null): string => (share === null ? "–" : `${(share * 100).toFixed(1)}%`);

function DriftTable({ drift }: { drift: ToolDrift[] }) {
  if (drift.length === 0) return <p className="text-[13px] text-ink-muted">No finished attempts to compare yet.</p>;
  return (
    <table className="w-full border-collapse text-[13px]" data-testid="drift-table">
      <caption className="sr-only">UNKNOWN share per tool against its week before</caption>
      <thead>
        <tr className="border-b border-line text-left text-xs text-ink-muted">
          <th scope="col" className="py-1.5 pr-3 font-medium">
            Tool
          </th>
          <th scope="col" className="py-1.5 pr-3 text-right font-medium">
            UNKNOWN now
          </th>
          <th scope="col" className="py-1.5 pr-3 text-right font-medium">
            Week before
          </th>
          <th scope="col" className="py-1.5 font-medium">
            Verdict
          </th>
        </tr>
      </thead>
      <tbody>
        {drift.map((d) => (
          <tr key={d.tool} className="border-b border-line last:border-b-0" data-drift={d.drifting ? "true" : "false"}>
            <th scope="row" className="py-1.5 pr-3 text-left font-mono text-[12px] font-normal break-all">
              {d.tool}
            </th>
            <td className="py-1.5 pr-3 text-right tabular-nums">
              {percent(d.recentShare)}
              <span className="text-ink-subtle">
                {" "}
                ({d.recent.unknown}/{d.recent.finished})
              </span>
            </td>
            <td className="py-1.5 pr-3 text-right tabular-nums">
              {percent(d.baselineShare)}
              <span className="text-ink-subtle">
                {" "}
                ({d.baseline.unknown}/{d.baseline.finished})
              </span>
            </td>
            <td className="py-1.5 text-xs">
              {d.drifting ? (
                <span className="font-medium text-phase-unknown-ink">Rising: {d.reason}</span>
              ) : (
                <span className="text-ink-muted">{d.reason}</span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function OutcomeMixSection({
  mix,
  drift,
  today,
  windowLabel,
}: {
  mix: OutcomeMix;
  drift: ToolDrift[];
  today: string;
  windowLabel: string;
}) {
  const rising = drift.filter((d) => d.drifting);
  return (
    <section
      aria-labelledby="drift-heading"
      className="flex flex-col gap-3 rounded-lg border border-line p-3"
      data-testid="drift"
    >
      <div>
        <h2 id="drift-heading" className="font-medium text-ink">
          Outcome mix and drift
        </h2>
        <p className="text-xs leading-snug text-ink-subtle">
          What came of the attempts dispatched {windowLabel}, per effect class. A falling retry count is not
          automatically good: calls may be getting lost (UNKNOWN) instead of failing. A tool is marked when its UNKNOWN
          share over this window is at least twice its share over the 7 days before and 5 points higher, with at least
          10 finished attempts and 3 unknown now and 20 finished attempts in the week before.
        </p>
      </div>
      <ul className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-ink-muted" aria-label="Legend">
        {OUTCOME_ORDER.map((o) => (
          <li key={o} className="flex items-center gap-1.5">
            <span aria-hidden="true" className="size-2.5 rounded-sm" style={{ background: OUTCOME_LOOK[o].color }} />
            {OUTCOME_LOOK[o].label}
          </li>
        ))}
      </ul>
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-5">
        {EFFECT_CLASSES.map((effect) => (
          <EffectMix key={effect} mix={mix} effect={effect} today={today} />
        ))}
      </div>
      {rising.length > 0 ? (
        <p className="text-[13px] font-medium text-phase-unknown-ink" role="note" data-testid="drift-alert">
          {rising.length === 1 ? "One tool's" : `${rising.length} tools'`} UNKNOWN share rose above its week&apos;s
          level: {rising.map((d) => d.tool).join(", ")}.
        </p>
      ) : null}
      <DriftTable drift={drift} />
    </section>
  );
}
