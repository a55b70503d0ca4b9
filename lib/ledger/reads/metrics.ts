// The Prometheus series: counters from the audit trail and attempts, gauges from the operations table.
import type { Ledger } from "@/lib/ledger/ledger";
import { PHASES } from "@/lib/retry-gate/types";
import { EFFECT_CLASSES } from "@/lib/retry-gate/types";
import { countByPhase } from "./operations";
import { outcomeMix, unknownDriftByTool, type OutcomeMix, type ToolDrift } from "./drift";
import { bucketBounds, metricSeries, windowSpec, type MetricSeries, type MetricWindow } from "./metrics-series";
import { retrySpikes } from "./retry-spikes";
import {
  ATTEMPT_SECONDS_BUCKETS,
  attemptHistograms,
  timeByToolAndDependency,
  wallClock,
  type AttemptHistogram,
  type WallClock,
} from "./wall-clock";

export interface MetricsSnapshot {
  unknownOutcomes: number;
  unknownOutcomesTotal: number;
  reconciliationsTotal: number;
  duplicateRejectionsTotal: number;
  approvalInterruptionsTotal: number;
  staleFenceRejectionsTotal: number;
  runAllowancesExhaustedTotal: number;
  retriesByEffect: Record<string, number>;
  operationsByPhase: Record<string, number>;
}

const COUNTED_ACTIONS = {
  unknownOutcomesTotal: "operation.outcome_unknown",
  reconciliationsTotal: "operation.reconciled",
  duplicateRejectionsTotal: "operation.duplicate_rejected",
  approvalInterruptionsTotal: "operation.approval_requested",
  staleFenceRejectionsTotal: "operation.stale_fence_rejected",
  runAllowancesExhaustedTotal: "run.allowance_exhausted",
} as const;

export async function metricsSnapshot(ledger: Ledger): Promise<MetricsSnapshot> {
  const [actions, retries, byPhase] = await Promise.all([
    ledger.db.auditEvent.groupBy({
      by: ["action"],
      where: { action: { in: Object.values(COUNTED_ACTIONS) } },
      _count: { _all: true },
    }),
    ledger.db.$queryRaw<{ effect: string; retries: bigint | number }[]>`
      SELECT o."effect" AS effect, COUNT(*) AS retries
      FROM "Attempt" a JOIN "Operation" o ON o."id" = a."operationId"
      WHERE a."number" > 1 GROUP BY o."effect"`,
    countByPhase(ledger),
  ]);
  const count = (action: string): number => actions.find((a) => a.action === action)?._count._all ?? 0;
  return {
    unknownOutcomes: byPhase.UNKNOWN ?? 0,
    unknownOutcomesTotal: count(COUNTED_ACTIONS.unknownOutcomesTotal),
    reconciliationsTotal: count(COUNTED_ACTIONS.reconciliationsTotal),
    duplicateRejectionsTotal: count(COUNTED_ACTIONS.duplicateRejectionsTotal),
    approvalInterruptionsTotal: count(COUNTED_ACTIONS.approvalInterruptionsTotal),
    staleFenceRejectionsTotal: count(COUNTED_ACTIONS.staleFenceRejectionsTotal),
    runAllowancesExhaustedTotal: count(COUNTED_ACTIONS.runAllowancesExhaustedTotal),
    retriesByEffect: Object.fromEntries(
      EFFECT_CLASSES.map((e) => [e, Number(retries.find((r) => r.effect === e)?.retries ?? 0)]),
    ),
    operationsByPhase: Object.fromEntries(PHASES.map((p) => [p, byPhase[p] ?? 0])),
  };
}

/** Where the wall-clock went, since the first attempt: for the Prometheus export only (the page shows a window). */
export interface WallClockTotals {
  backoff: { tool: string; dependency: string | null; seconds: number }[];
  attemptSeconds: AttemptHistogram[];
}

export async function wallClockTotals(ledger: Ledger): Promise<WallClockTotals> {
  const [pairs, attemptSeconds] = await Promise.all([timeByToolAndDependency(ledger, null), attemptHistograms(ledger)]);
  return {
    backoff: pairs.map((p) => ({ tool: p.tool, dependency: p.dependency, seconds: p.backoffMs / 1000 })),
    attemptSeconds,
  };
}

/** A label value as the exposition format requires: backslash, double quote and line feed escaped. */
export function labelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function labels(pairs: [string, string][]): string {
  return pairs.length === 0 ? "" : `{${pairs.map(([k, v]) => `${k}="${labelValue(v)}"`).join(",")}}`;
}

function series(
  name: string,
  help: string,
  type: "counter" | "gauge" | "histogram",
  samples: [string, number][],
): string {
  return [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...samples.map(([l, v]) => `${name}${l} ${v}`)].join(
    "\n",
  );
}

function histogram(name: string, help: string, histograms: AttemptHistogram[]): string {
  const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} histogram`];
  for (const h of histograms) {
    const tool: [string, string] = ["tool", h.tool];
    ATTEMPT_SECONDS_BUCKETS.forEach((le, i) =>
      lines.push(`${name}_bucket${labels([tool, ["le", String(le)]])} ${h.buckets[i] ?? 0}`),
    );
    lines.push(`${name}_bucket${labels([tool, ["le", "+Inf"]])} ${h.count}`);
    lines.push(`${name}_sum${labels([tool])} ${h.sumSeconds}`);
    lines.push(`${name}_count${labels([tool])} ${h.count}`);
  }
  return lines.join("\n");
}

export function prometheusText(m: MetricsSnapshot, time: WallClockTotals): string {
  return (
    [
      series("opledger_unknown_outcomes", "Operations currently in UNKNOWN, waiting for reconciliation.", "gauge", [
        ["", m.unknownOutcomes],
      ]),
      series("opledger_unknown_outcomes_total", "Operations that entered UNKNOWN.", "counter", [
        ["", m.unknownOutcomesTotal],
      ]),
      series("opledger_reconciliations_total", "Reconciliations recorded.", "counter", [["", m.reconciliationsTotal]]),
      series(
        "opledger_duplicate_rejections_total",
        "Plans refused because an idempotency key was reused with different args.",
        "counter",
        [["", m.duplicateRejectionsTotal]],
      ),
      series("opledger_approval_interruptions_total", "Times the gate asked a person to approve.", "counter", [
        ["", m.approvalInterruptionsTotal],
      ]),
      series(
        "opledger_stale_fence_rejections_total",
        "Writes refused because the worker's fencing token was stale.",
        "counter",
        [["", m.staleFenceRejectionsTotal]],
      ),
      series(
        "opledger_run_allowances_exhausted_total",
        "Runs whose allowance (deadline, retries or backoff) stopped a retry.",
        "counter",
        [["", m.runAllowancesExhaustedTotal]],
      ),
      series(
        "opledger_retries_total",
        "Attempts after the first, by effect class.",
        "counter",
        Object.entries(m.retriesByEffect).map(([e, v]) => [`{effect="${e}"}`, v]),
      ),
      series(
        "opledger_operations",
        "Operations by phase.",
        "gauge",
        Object.entries(m.operationsByPhase).map(([p, v]) => [`{phase="${p}"}`, v]),
      ),
      series(
        "opledger_backoff_seconds_total",
        "Seconds attempts waited in backoff before they went, by tool and the dependency its contract names.",
        "counter",
        time.backoff.map((b) => [
          labels([
            ["tool", b.tool],
            ["dependency", b.dependency ?? ""],
          ]),
          b.seconds,
        ]),
      ),
      histogram(
        "opledger_attempt_seconds",
        "How long finished attempts took, from dispatch to their outcome, by tool.",
        time.attemptSeconds,
      ),
    ].join("\n") + "\n"
  );
}

/** Everything the console's Metrics page shows for a window, read once for the page and its polling route alike. */
export interface ConsoleMetrics {
  series: MetricSeries;
  snapshot: MetricsSnapshot;
  /** Time in backoff versus time in calls over the window. */
  time: WallClock;
  /** Outcomes per effect class over the window's buckets. */
  mix: OutcomeMix;
  /** Each tool's UNKNOWN share over the window against the week before it. */
  drift: ToolDrift[];
  /** Tools whose retries jumped in the current five minutes (retries.spike). */
  spikes: { tool: string; retries: number; hourAverage: number; windowStart: string; windowEnd: string }[];
  at: string;
}

export async function consoleMetrics(ledger: Ledger, window: MetricWindow, now: Date): Promise<ConsoleMetrics> {
  const spec = windowSpec(window);
  const { from, to, count } = bucketBounds(spec, now);
  const [series, snapshot, time, mix, drift, spikes] = await Promise.all([
    metricSeries(ledger, window, now),
    metricsSnapshot(ledger),
    wallClock(ledger, new Date(from), new Date(to)),
    outcomeMix(ledger, new Date(from), spec.bucketMs, count),
    unknownDriftByTool(ledger, new Date(from), new Date(to)),
    retrySpikes(ledger, now),
  ]);
  return {
    series,
    snapshot,
    time,
    mix,
    drift,
    spikes: spikes.map((s) => ({
      ...s,
      windowStart: s.windowStart.toISOString(),
      windowEnd: s.windowEnd.toISOString(),
    })),
    at: now.toISOString(),
  };
}
