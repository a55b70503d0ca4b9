"use client";
// A time shown as "3 min ago", with the exact UTC instant in the markup and on hover.
import { formatExactUtc, formatRelativeTime, toEpochMs } from "./format-time";
import { CALM_TICK_MS, LIVE_TICK_MS, useNow } from "./use-now";

export interface RelativeTimeProps {
  value: Date | string | number;
  /**
   * The reference time. When given, the relative text is computed from it on the server too (useful
   * for tables rendered at one instant and for tests); otherwise the exact time is rendered first and
   * the relative text appears after mount, so server and client HTML always match.
   */
  now?: Date | string | number;
  /** On the operations views, which refresh every 5 s: the text keeps pace with the data. */
  live?: boolean;
  className?: string;
}

export function RelativeTime({ value, now, live = false, className = "" }: RelativeTimeProps) {
  const fixedNow = now === undefined ? null : toEpochMs(now);
  const clock = useNow(live ? LIVE_TICK_MS : CALM_TICK_MS, now === undefined);
  const thenMs = toEpochMs(value);

  if (thenMs === null) {
    return <span className={`text-ink-subtle ${className}`}>invalid time</span>;
  }

  const exact = formatExactUtc(thenMs);
  const nowMs = fixedNow ?? clock;
  return (
    <time dateTime={new Date(thenMs).toISOString()} title={exact} className={`whitespace-nowrap ${className}`}>
      {nowMs === null ? exact : formatRelativeTime(thenMs, nowMs)}
    </time>
  );
}
