// The run page's timeline with each drawn operation's trace id, for its Trace links (lib/console/trace-link.ts): the
// ledger's run timeline, and one read of the trace ids of the operations it drew.
import type { Ledger } from "@/lib/ledger/ledger";
import { runTimeline, type RunTimeline, type TimelineOperation } from "@/lib/ledger/reads/run-timeline";

export interface TracedRunTimeline extends RunTimeline {
  /** Each operation with the trace id of the call that planned it (null when it came without one). */
  operations: (TimelineOperation & { traceId: string | null })[];
}

export async function tracedRunTimeline(ledger: Ledger, runId: string, now: Date): Promise<TracedRunTimeline> {
  const timeline = await runTimeline(ledger, runId, now);
  const rows = await ledger.db.operation.findMany({
    where: { id: { in: timeline.operations.map((op) => op.id) } },
    select: { id: true, traceId: true },
  });
  const traceIds = new Map(rows.map((row) => [row.id, row.traceId]));
  return {
    ...timeline,
    operations: timeline.operations.map((op) => ({ ...op, traceId: traceIds.get(op.id) ?? null })),
  };
}
