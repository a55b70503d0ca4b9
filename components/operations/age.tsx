"use client";
// How long something has been true ("2 h 5 min"), for the queues where age is what an operator sorts by in their head.
import { formatExactUtc, toEpochMs } from "@/components/ui/format-time";
import { LIVE_TICK_MS, useNow } from "@/components/ui/use-now";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Whole units, rounded down, two units at most: "under 1 min", "12 min", "3 h 4 min", "2 d 5 h". */
export function formatAge(ms: number): string {
  if (ms < MINUTE) return "under 1 min";
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)} min`;
  if (ms < DAY) {
    const minutes = Math.floor((ms % HOUR) / MINUTE);
    return `${Math.floor(ms / HOUR)} h${minutes > 0 ? ` ${minutes} min` : ""}`;
  }
  const hours = Math.floor((ms % DAY) / HOUR);
  return `${Math.floor(ms / DAY)} d${hours > 0 ? ` ${hours} h` : ""}`;
}

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
