// Drift: the mix of outcomes per effect class over time, and the tools whose share of UNKNOWN outcomes rose above their
// week's level (a falling retry count is not automatically good: calls may be getting lost instead of failing).
import { Prisma } from "@/lib/platform/generated/prisma/client";
import type { Ledger } from "@/lib/ledger/ledger";
import { EFFECT_CLASSES, type EffectClass } from "@/lib/retry-gate/types";
import { bucketIndexSql, numberOf, timeParam } from "./wall-clock";

/** What came of the attempts: proven done, lost, failed, or stopped for a person. */
export const OUTCOMES = ["confirmed", "unknown", "failed", "approval"] as const;
export type Outcome = (typeof OUTCOMES)[number];
export type OutcomeCounts = Record<Outcome, number>;

export interface OutcomeMixBucket {
  /** Start of the bucket, ISO 8601 UTC. */
  start: string;
  byEffect: Record<EffectClass, OutcomeCounts>;
}

export interface OutcomeMix {
  bucketMs: number;
  buckets: OutcomeMixBucket[];
  totals: Record<EffectClass, OutcomeCounts>;
}

const zeroCounts = (): OutcomeCounts => ({ confirmed: 0, unknown: 0, failed: 0, approval: 0 });
const perEffect = (): Record<EffectClass, OutcomeCounts> =>
  Object.fromEntries(EFFECT_CLASSES.map((e) => [e, zeroCounts()])) as Record<EffectClass, OutcomeCounts>;

function isEffectClass(value: string): value is EffectClass {
  return (EFFECT_CLASSES as readonly string[]).includes(value);
}

function outcomeOf(result: string): Outcome | null {
  return result === "confirmed" || result === "unknown" || result === "failed" ? result : null;
}

/**
 * Per bucket and effect class: the attempts dispatched in it by their result (confirmed, unknown, failed; attempts
 * still out are not an outcome yet), and the approval requests made in it. Counted by the database, grouped.
 */
export async function outcomeMix(ledger: Ledger, from: Date, bucketMs: number, count: number): Promise<OutcomeMix> {
  const to = new Date(from.getTime() + bucketMs * count);
  const engine = ledger.engine;
  const attemptBucket = bucketIndexSql(engine, `a."dispatchedAt"`, from, bucketMs);
  const eventBucket = bucketIndexSql(engine, `e."createdAt"`, from, bucketMs);
  const [attempts, approvals] = await Promise.all([
    ledger.db.$queryRaw<{ bucket: unknown; effect: string; result: string; n: unknown }[]>`
      SELECT ${attemptBucket} AS bucket, o."effect" AS effect, a."result" AS result, COUNT(*) AS n
      FROM "Attempt" a JOIN "Operation" o ON o."id" = a."operationId"
      WHERE a."dispatchedAt" >= ${timeParam(engine, from)} AND a."dispatchedAt" < ${timeParam(engine, to)}
        AND a."result" <> 'in_flight'
      GROUP BY 1, o."effect", a."result"`,
    ledger.db.$queryRaw<{ bucket: unknown; effect: string; n: unknown }[]>`
      SELECT ${eventBucket} AS bucket, o."effect" AS effect, COUNT(*) AS n
      FROM "AuditEvent" e JOIN "Operation" o ON o."id" = e."subjectId"
      WHERE e."action" = 'operation.approval_requested' AND e."subjectType" = 'operation'
        AND e."createdAt" >= ${timeParam(engine, from)} AND e."createdAt" < ${timeParam(engine, to)}
      GROUP BY 1, o."effect"`,
  ]);
  const buckets: OutcomeMixBucket[] = Array.from({ length: count }, (_, i) => ({
    start: new Date(from.getTime() + i * bucketMs).toISOString(),
    byEffect: perEffect(),
  }));
  const totals = perEffect();
  const put = (bucket: unknown, effect: string, outcome: Outcome | null, n: unknown): void => {
    const at = buckets[numberOf(bucket)];
    if (!at || outcome === null || !isEffectClass(effect)) return;
    at.byEffect[effect][outcome] += numberOf(n);
    totals[effect][outcome] += numberOf(n);
  };
  for (const row of attempts) put(row.bucket, row.effect, outcomeOf(row.result), row.n);
  for (const row of approvals) put(row.bucket, row.effect, "approval", row.n);
  return { bucketMs, buckets, totals };
}

/** Finished attempts and how many of them were lost (UNKNOWN), over one period. */
export interface UnknownShare {
  finished: number;
  unknown: number;
}

/**
 * The drift rule, precisely: a tool is marked when, over the recent period, it has at least MIN_RECENT_FINISHED
 * finished attempts and MIN_RECENT_UNKNOWN unknown ones, its baseline (the 7 days before) has at least
 * MIN_BASELINE_FINISHED finished attempts, and its recent UNKNOWN share is both at least RISE_FACTOR times the
 * baseline share and at least MIN_RISE (5 percentage points) above it. Without enough baseline there is no week's
 * level to rise above, and the tool is not marked.
 */
export const DRIFT_RULE = {
  MIN_RECENT_FINISHED: 10,
  MIN_RECENT_UNKNOWN: 3,
  MIN_BASELINE_FINISHED: 20,
  RISE_FACTOR: 2,
  MIN_RISE: 0.05,
  BASELINE_MS: 7 * 24 * 60 * 60_000,
} as const;

export interface DriftVerdict {
  drifting: boolean;
  recentShare: number | null;
  baselineShare: number | null;
  /** Why the tool is or is not marked, in one sentence. */
  reason: string;
}

const share = (s: UnknownShare): number | null => (s.finished === 0 ? null : s.unknown / s.finished);
const percent = (x: number): string => `${(x * 100).toFixed(1)}%`;

export function unknownDrift(recent: UnknownShare, baseline: UnknownShare): DriftVerdict {
  const recentShare = share(recent);
  const baselineShare = share(baseline);
  const verdict = (drifting: boolean, reason: string): DriftVerdict => ({
    drifting,
    recentShare,
    baselineShare,
    reason,
  });
  if (recent.finished < DRIFT_RULE.MIN_RECENT_FINISHED || recent.unknown < DRIFT_RULE.MIN_RECENT_UNKNOWN)
    return verdict(false, "too few finished or unknown attempts recently to judge");
  if (baseline.finished < DRIFT_RULE.MIN_BASELINE_FINISHED || baselineShare === null)
    return verdict(false, "too few attempts in the week before to know its level");
  const now = recentShare ?? 0;
  if (now >= baselineShare * DRIFT_RULE.RISE_FACTOR && now - baselineShare >= DRIFT_RULE.MIN_RISE)
    return verdict(true, `UNKNOWN share ${percent(now)}, up from ${percent(baselineShare)} over the week before`);
  return verdict(false, `UNKNOWN share ${percent(now)}, near its week's ${percent(baselineShare)}`);
}

export interface ToolDrift extends DriftVerdict {
  tool: string;
  recent: UnknownShare;
  baseline: UnknownShare;
}

/**
 * Every tool with finished attempts recently ([from, to)) or in the week before ([from − 7 d, from)), with the drift
 * rule's verdict; marked tools first.
 */
export async function unknownDriftByTool(ledger: Ledger, from: Date, to: Date): Promise<ToolDrift[]> {
  const engine = ledger.engine;
  const weekBefore = new Date(from.getTime() - DRIFT_RULE.BASELINE_MS);
  const recent = Prisma.sql`a."dispatchedAt" >= ${timeParam(engine, from)}`;
  const rows = await ledger.db.$queryRaw<{ tool: string; rf: unknown; ru: unknown; bf: unknown; bu: unknown }[]>`
    SELECT o."tool" AS tool,
      SUM(CASE WHEN ${recent} THEN 1 ELSE 0 END) AS rf,
      SUM(CASE WHEN ${recent} AND a."result" = 'unknown' THEN 1 ELSE 0 END) AS ru,
      SUM(CASE WHEN ${recent} THEN 0 ELSE 1 END) AS bf,
      SUM(CASE WHEN NOT (${recent}) AND a."result" = 'unknown' THEN 1 ELSE 0 END) AS bu
    FROM "Attempt" a JOIN "Operation" o ON o."id" = a."operationId"
    WHERE a."dispatchedAt" >= ${timeParam(engine, weekBefore)} AND a."dispatchedAt" < ${timeParam(engine, to)}
      AND a."result" <> 'in_flight'
    GROUP BY o."tool"`;
  return rows
    .map((row): ToolDrift => {
      const recentShare = { finished: numberOf(row.rf), unknown: numberOf(row.ru) };
      const baseline = { finished: numberOf(row.bf), unknown: numberOf(row.bu) };
      return { tool: row.tool, recent: recentShare, baseline, ...unknownDrift(recentShare, baseline) };
    })
    .sort((a, b) => Number(b.drifting) - Number(a.drifting) || a.tool.localeCompare(b.tool));
}
