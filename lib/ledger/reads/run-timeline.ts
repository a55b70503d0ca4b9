// One run on a time axis: its operations in the order they were planned, each attempt from dispatch to outcome and the
// backoff it waited before it, for the console's run page.
import type { Ledger } from "@/lib/ledger/ledger";
import { LedgerError } from "../errors";

/** A bound, not a policy: a run page draws at most this many operations (the first planned). */
export const RUN_TIMELINE_LIMIT = 500;

export interface TimelineAttempt {
  number: number;
  /** in_flight | confirmed | failed | unknown */
  result: string;
  /** The backoff waited before it went: drawn as the gap before its bar. */
  backoffMs: number;
  dispatchedAt: string;
  /** null while it is still out: the bar runs to the timeline's end. */
  finishedAt: string | null;
  errorKind: string | null;
}

export interface TimelineOperation {
  id: string;
  tool: string;
  effect: string;
  phase: string;
  createdAt: string;
  /** The trace id of the call that planned it (null when it came without one): the run page's Trace links. */
  traceId: string | null;
  attempts: TimelineAttempt[];
}

export interface RunTimeline {
  runId: string;
  /** The earliest plan, and the latest outcome (or now while an attempt is out). */
  from: string;
  to: string;
  operations: TimelineOperation[];
  /** More operations than RUN_TIMELINE_LIMIT: the rest are left out. */
  truncated: boolean;
  totals: { backoffMs: number; callMs: number; attempts: number };
}

export async function runTimeline(ledger: Ledger, runId: string, now: Date): Promise<RunTimeline> {
  const rows = await ledger.db.operation.findMany({
    where: { runId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: RUN_TIMELINE_LIMIT + 1,
    select: {
      id: true,
      tool: true,
      effect: true,
      phase: true,
      createdAt: true,
      traceId: true,
      attempts: {
        orderBy: { number: "asc" },
        select: {
          number: true,
          result: true,
          backoffMs: true,
          dispatchedAt: true,
          finishedAt: true,
          errorKind: true,
        },
      },
    },
  });
  if (rows.length === 0) throw new LedgerError("not_found", `There is no run ${runId}.`);
  const shown = rows.slice(0, RUN_TIMELINE_LIMIT);
  let from = Infinity;
  let to = -Infinity;
  const totals = { backoffMs: 0, callMs: 0, attempts: 0 };
  const operations = shown.map((op): TimelineOperation => {
    from = Math.min(from, op.createdAt.getTime());
    to = Math.max(to, op.createdAt.getTime());
    return {
      id: op.id,
      tool: op.tool,
      effect: op.effect,
      phase: op.phase,
      createdAt: op.createdAt.toISOString(),
      traceId: op.traceId,
      attempts: op.attempts.map((a): TimelineAttempt => {
        const end = a.finishedAt ?? now;
        to = Math.max(to, end.getTime());
        totals.attempts += 1;
        totals.backoffMs += a.backoffMs;
        if (a.finishedAt) totals.callMs += Math.max(0, a.finishedAt.getTime() - a.dispatchedAt.getTime());
        return {
          number: a.number,
          result: a.result,
          backoffMs: a.backoffMs,
          dispatchedAt: a.dispatchedAt.toISOString(),
          finishedAt: a.finishedAt?.toISOString() ?? null,
          errorKind: a.errorKind,
        };
      }),
    };
  });
  return {
    runId,
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    operations,
    truncated: rows.length > RUN_TIMELINE_LIMIT,
    totals,
  };
}
