// Where the wall-clock went: the backoff each attempt waited before it went and the time it spent in the call, summed per
// tool and per dependency in the database (one grouped query per engine), for the Metrics page and the Prometheus export.
import { Prisma } from "@/lib/platform/generated/prisma/client";
import type { Engine } from "@/lib/platform/db/prisma";
import type { Ledger } from "@/lib/ledger/ledger";
import { sqliteCodec } from "@/lib/ledger/store/sqlite/sqlite-store";

/** Whole milliseconds from one DateTime column to another, in the engine's SQL (SQLite keeps ISO 8601 text). */
export function millisBetween(engine: Engine, from: string, to: string): Prisma.Sql {
  return engine === "postgresql"
    ? Prisma.raw(`ROUND(EXTRACT(EPOCH FROM (${to} - ${from})) * 1000)`)
    : Prisma.raw(`ROUND((julianday(${to}) - julianday(${from})) * 86400000.0)`);
}

/** A point in time as a query parameter comparable with the engine's DateTime columns. */
export function timeParam(engine: Engine, at: Date): Prisma.Sql {
  return engine === "postgresql"
    ? Prisma.sql`CAST(${at.toISOString()} AS timestamp)`
    : Prisma.sql`${sqliteCodec.toDb(at)}`;
}

/** A number from a raw query: SQLite answers numbers, PostgreSQL bigint or Decimal for sums and counts. */
export function numberOf(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === "number") return value;
  if (typeof value === "bigint" || typeof value === "string") return Number(value);
  // PostgreSQL's sums arrive as Prisma's Decimal.
  return Number((value as { toString(): string }).toString());
}

export interface TimeSplit {
  /** Sum of the backoff the attempts waited before they went (Attempt.backoffMs). */
  backoffMs: number;
  /** Sum of finishedAt − dispatchedAt over the finished attempts. */
  callMs: number;
  attempts: number;
  /** Attempts still out (no finishedAt): they count as attempts, not yet as call time. */
  inFlight: number;
}

export interface ToolTime extends TimeSplit {
  tool: string;
}

export interface DependencyTime extends TimeSplit {
  /** null: tools whose contract names no dependency. */
  dependency: string | null;
}

export interface WallClock {
  from: string;
  to: string;
  total: TimeSplit;
  /** Most time first (backoff plus calls). */
  byTool: ToolTime[];
  byDependency: DependencyTime[];
}

interface PairRow {
  tool: string;
  dependency: string | null;
  attempts: unknown;
  backoff: unknown;
  calls: unknown;
  inflight: unknown;
}

const zero = (): TimeSplit => ({ backoffMs: 0, callMs: 0, attempts: 0, inFlight: 0 });

function add(into: TimeSplit, row: TimeSplit): void {
  into.backoffMs += row.backoffMs;
  into.callMs += row.callMs;
  into.attempts += row.attempts;
  into.inFlight += row.inFlight;
}

const byTimeSpent = (a: TimeSplit, b: TimeSplit): number => b.backoffMs + b.callMs - (a.backoffMs + a.callMs);

/**
 * Sums per (tool, dependency) of the attempts dispatched in [from, to) (or all of them): the dependency is the one the
 * operation's contract version names, so an edit of the contract does not move past attempts.
 */
export async function timeByToolAndDependency(
  ledger: Ledger,
  range: { from: Date; to: Date } | null,
): Promise<(TimeSplit & { tool: string; dependency: string | null })[]> {
  const engine = ledger.engine;
  const duration = millisBetween(engine, `a."dispatchedAt"`, `a."finishedAt"`);
  const where = range
    ? Prisma.sql`WHERE a."dispatchedAt" >= ${timeParam(engine, range.from)} AND a."dispatchedAt" < ${timeParam(engine, range.to)}`
    : Prisma.empty;
  const rows = await ledger.db.$queryRaw<PairRow[]>`
    SELECT o."tool" AS tool, c."dependency" AS dependency, COUNT(*) AS attempts,
      SUM(a."backoffMs") AS backoff,
      SUM(CASE WHEN a."finishedAt" IS NULL THEN 0 ELSE ${duration} END) AS calls,
      SUM(CASE WHEN a."finishedAt" IS NULL THEN 1 ELSE 0 END) AS inflight
    FROM "Attempt" a
    JOIN "Operation" o ON o."id" = a."operationId"
    LEFT JOIN "ContractVersion" c ON c."tool" = o."tool" AND c."version" = o."contractVersion"
    ${where}
    GROUP BY o."tool", c."dependency"`;
  return rows.map((r) => ({
    tool: r.tool,
    dependency: r.dependency,
    attempts: numberOf(r.attempts),
    backoffMs: Math.round(numberOf(r.backoff)),
    callMs: Math.max(0, Math.round(numberOf(r.calls))),
    inFlight: numberOf(r.inflight),
  }));
}

/** The split over [from, to): per tool, per dependency and in total. */
export async function wallClock(ledger: Ledger, from: Date, to: Date): Promise<WallClock> {
  const pairs = await timeByToolAndDependency(ledger, { from, to });
  const tools = new Map<string, ToolTime>();
  const dependencies = new Map<string | null, DependencyTime>();
  const total = zero();
  for (const pair of pairs) {
    const { tool, dependency, ...split } = pair;
    const perTool = tools.get(tool) ?? { tool, ...zero() };
    add(perTool, split);
    tools.set(tool, perTool);
    const perDependency = dependencies.get(dependency) ?? { dependency, ...zero() };
    add(perDependency, split);
    dependencies.set(dependency, perDependency);
    add(total, split);
  }
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    total,
    byTool: [...tools.values()].sort((a, b) => byTimeSpent(a, b) || a.tool.localeCompare(b.tool)),
    byDependency: [...dependencies.values()].sort(
      (a, b) => byTimeSpent(a, b) || (a.dependency ?? "").localeCompare(b.dependency ?? ""),
    ),
  };
}

/** The upper bounds (seconds) of the attempt-duration histogram: from a quick API call to a slow batch job. */
export const ATTEMPT_SECONDS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300] as const;

export interface AttemptHistogram {
  tool: string;
  /** Cumulative counts, one per ATTEMPT_SECONDS_BUCKETS bound (attempts that took at most that long). */
  buckets: number[];
  sumSeconds: number;
  count: number;
}

/** Every finished attempt's duration, per tool, counted into the histogram's cumulative buckets by the database. */
export async function attemptHistograms(ledger: Ledger): Promise<AttemptHistogram[]> {
  const duration = millisBetween(ledger.engine, `a."dispatchedAt"`, `a."finishedAt"`);
  const counts = ATTEMPT_SECONDS_BUCKETS.map(
    (le, i) =>
      Prisma.sql`SUM(CASE WHEN t.ms <= ${Prisma.raw(String(le * 1000))} THEN 1 ELSE 0 END) AS ${Prisma.raw(`b${i}`)}`,
  );
  const rows = await ledger.db.$queryRaw<Record<string, unknown>[]>`
    SELECT t.tool AS tool, COUNT(*) AS n, SUM(t.ms) AS total, ${Prisma.join(counts, ", ")}
    FROM (
      SELECT o."tool" AS tool, ${duration} AS ms
      FROM "Attempt" a JOIN "Operation" o ON o."id" = a."operationId"
      WHERE a."finishedAt" IS NOT NULL
    ) t
    GROUP BY t.tool
    ORDER BY t.tool`;
  return rows.map((r) => ({
    tool: String(r.tool),
    buckets: ATTEMPT_SECONDS_BUCKETS.map((_, i) => numberOf(r[`b${i}`])),
    sumSeconds: Math.max(0, numberOf(r.total)) / 1000,
    count: numberOf(r.n),
  }));
}

/**
 * The bucket a DateTime column falls in, counting whole `bucketMs` from `from` (0 is the first), in the engine's SQL;
 * rounded to the millisecond first, so a time on a bucket's edge falls in the bucket it starts.
 */
export function bucketIndexSql(engine: Engine, column: string, from: Date, bucketMs: number): Prisma.Sql {
  const start = timeParam(engine, from);
  const size = Prisma.raw(String(Math.trunc(bucketMs)));
  return engine === "postgresql"
    ? Prisma.sql`FLOOR(ROUND(EXTRACT(EPOCH FROM (${Prisma.raw(column)} - ${start})) * 1000) / ${size})`
    : Prisma.sql`(CAST(ROUND((julianday(${Prisma.raw(column)}) - julianday(${start})) * 86400000.0) AS INTEGER) / ${size})`;
}
