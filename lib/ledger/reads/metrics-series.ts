// Time series for the console's charts: the Prometheus counters of lib/ledger/reads/metrics.ts, counted per time bucket
// over a bounded window.
import type { Ledger } from "@/lib/ledger/ledger";
import { assertNever } from "@/lib/retry-gate/exhaustive";
import { EFFECT_CLASSES, type EffectClass } from "@/lib/retry-gate/types";

export const METRIC_WINDOWS = ["1h", "24h"] as const;
export type MetricWindow = (typeof METRIC_WINDOWS)[number];

/** The audit actions each charted counter counts; the same ones the Prometheus export counts. */
export const SERIES_ACTIONS = {
  unknownOutcomes: "operation.outcome_unknown",
  reconciliations: "operation.reconciled",
  duplicateRejections: "operation.duplicate_rejected",
  approvalInterruptions: "operation.approval_requested",
} as const;
export type ActionSeries = keyof typeof SERIES_ACTIONS;

export interface WindowSpec {
  window: MetricWindow;
  durationMs: number;
  bucketMs: number;
}

export function windowSpec(window: MetricWindow): WindowSpec {
  switch (window) {
    case "1h":
      return { window, durationMs: 60 * 60_000, bucketMs: 60_000 };
    case "24h":
      return { window, durationMs: 24 * 60 * 60_000, bucketMs: 15 * 60_000 };
    default:
      return assertNever(window, "metric window");
  }
}

export interface MetricBucket {
  /** Start of the bucket, ISO 8601 UTC. */
  start: string;
  unknownOutcomes: number;
  reconciliations: number;
  duplicateRejections: number;
  approvalInterruptions: number;
  retries: Record<EffectClass, number>;
}

/** One tool's retries (attempts after the first) per bucket, for the retries-per-tool chart. */
export interface ToolRetries {
  tool: string;
  /** One count per bucket, in bucket order. */
  counts: number[];
  total: number;
}

export interface MetricSeries {
  window: MetricWindow;
  bucketMs: number;
  /** Start of the first bucket and end of the last one (exclusive), ISO 8601 UTC. */
  from: string;
  to: string;
  buckets: MetricBucket[];
  /** Sums over the window. */
  totals: Record<ActionSeries, number> & { retries: Record<EffectClass, number> };
  /** Retries per tool, the tools with most first; tools without retries in the window are left out. */
  toolRetries: ToolRetries[];
}

function zeroRetries(): Record<EffectClass, number> {
  return Object.fromEntries(EFFECT_CLASSES.map((e) => [e, 0])) as Record<EffectClass, number>;
}

function isEffectClass(value: string): value is EffectClass {
  return (EFFECT_CLASSES as readonly string[]).includes(value);
}

const ACTION_SERIES = new Map<string, ActionSeries>(
  (Object.entries(SERIES_ACTIONS) as [ActionSeries, string][]).map(([series, action]) => [action, series]),
);

/**
 * Buckets are aligned to whole bucket lengths since the epoch, so two polls a few seconds apart draw the
 * same bars; the last bucket is the one `now` falls in (still filling).
 */
export function bucketBounds(spec: WindowSpec, now: Date): { from: number; to: number; count: number } {
  const count = spec.durationMs / spec.bucketMs;
  const to = Math.floor(now.getTime() / spec.bucketMs) * spec.bucketMs + spec.bucketMs;
  return { from: to - count * spec.bucketMs, to, count };
}

/**
 * Counts per bucket, in JavaScript over the window's rows (two columns each): the window is bounded,
 * AuditEvent is indexed on createdAt, and it keeps one code path for SQLite and PostgreSQL.
 */
export async function metricSeries(ledger: Ledger, window: MetricWindow, now: Date): Promise<MetricSeries> {
  const spec = windowSpec(window);
  const { from, to, count } = bucketBounds(spec, now);
  const range = { gte: new Date(from), lt: new Date(to) };
  const [events, retries] = await Promise.all([
    ledger.db.auditEvent.findMany({
      where: { createdAt: range, action: { in: Object.values(SERIES_ACTIONS) } },
      select: { action: true, createdAt: true },
    }),
    ledger.db.attempt.findMany({
      where: { number: { gt: 1 }, dispatchedAt: range },
      select: { dispatchedAt: true, operation: { select: { effect: true, tool: true } } },
    }),
  ]);

  const buckets: MetricBucket[] = Array.from({ length: count }, (_, i) => ({
    start: new Date(from + i * spec.bucketMs).toISOString(),
    unknownOutcomes: 0,
    reconciliations: 0,
    duplicateRejections: 0,
    approvalInterruptions: 0,
    retries: zeroRetries(),
  }));
  const bucketAt = (at: Date): MetricBucket | undefined => buckets[Math.floor((at.getTime() - from) / spec.bucketMs)];

  const totals = {
    unknownOutcomes: 0,
    reconciliations: 0,
    duplicateRejections: 0,
    approvalInterruptions: 0,
    retries: zeroRetries(),
  };
  for (const event of events) {
    const series = ACTION_SERIES.get(event.action);
    const bucket = bucketAt(event.createdAt);
    if (!series || !bucket) continue;
    bucket[series] += 1;
    totals[series] += 1;
  }
  const perTool = new Map<string, ToolRetries>();
  for (const attempt of retries) {
    const { effect, tool } = attempt.operation;
    const index = Math.floor((attempt.dispatchedAt.getTime() - from) / spec.bucketMs);
    const bucket = buckets[index];
    if (!bucket) continue;
    const toolRow = perTool.get(tool) ?? { tool, counts: new Array<number>(count).fill(0), total: 0 };
    toolRow.counts[index] = (toolRow.counts[index] ?? 0) + 1;
    toolRow.total += 1;
    perTool.set(tool, toolRow);
    if (!isEffectClass(effect)) continue;
    bucket.retries[effect] += 1;
    totals.retries[effect] += 1;
  }
  return {
    window,
    bucketMs: spec.bucketMs,
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    buckets,
    totals,
    toolRetries: [...perTool.values()].sort((a, b) => b.total - a.total || a.tool.localeCompare(b.tool)),
  };
}
