"use client";
// How long something has been true ("2 h 5 min"), for the queues where age is what an operator sorts by in their head.
import { formatExactUtc, toEpochMs } from "@/components/ui/format-time";
import { LIVE_TICK_MS, useNow } from "@/components/ui/use-now";
import { formatAge } from "@/lib/console/wait-time";

export function Age({ since, className = "" }: { since: string; className?: string }) {
  const now = useNow(LIVE_TICK_MS);
  const thenMs = toEpochMs(since);
  if (thenMs === null) return <span className="text-ink-subtle">unknown</span>;
  const exact = formatExactUtc(thenMs);
  return (
    <time
      dateTime={new Date(thenMs).toISOString()}
      title={`since ${exact}`}
      className={`whitespace-nowrap tabular-nums ${className}`}
    >
      {now === null ? exact : formatAge(Math.max(0, now - thenMs))}
    </time>
  );
}
