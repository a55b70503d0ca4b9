// Pure formatting of times for the console: an operator's "3 min ago" and the exact UTC instant behind it.

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Whole units, rounded down: an operation 59 minutes old is "59 min", never "1 h". */
function describeSpan(ms: number): string {
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)} min`;
  if (ms < DAY) {
    const hours = Math.floor(ms / HOUR);
    const minutes = Math.floor((ms % HOUR) / MINUTE);
    return hours < 10 && minutes > 0 ? `${hours} h ${minutes} min` : `${hours} h`;
  }
  const days = Math.floor(ms / DAY);
  const hours = Math.floor((ms % DAY) / HOUR);
  return days < 10 && hours > 0 ? `${days} d ${hours} h` : `${days} d`;
}

/** "just now", "3 min ago", "2 h 5 min ago", "in 4 min"; both arguments are epoch milliseconds. */
export function formatRelativeTime(thenMs: number, nowMs: number): string {
  const diff = nowMs - thenMs;
  if (Math.abs(diff) < MINUTE) return diff >= 0 ? "just now" : "in under a minute";
  return diff > 0 ? `${describeSpan(diff)} ago` : `in ${describeSpan(-diff)}`;
}

/** "2025-11-30 14:47:03.120 UTC": the same instant for every operator, whatever their time zone. */
export function formatExactUtc(ms: number): string {
  return new Date(ms).toISOString().replace("T", " ").replace("Z", " UTC");
}

// The largest instant a JavaScript Date can hold; beyond it toISOString throws.
const MAX_DATE_MS = 8.64e15;

/** Epoch milliseconds, or null for a value that is not a valid time. */
export function toEpochMs(value: Date | string | number): number | null {
  const ms = value instanceof Date ? value.getTime() : typeof value === "number" ? value : Date.parse(value);
  return Number.isFinite(ms) && Math.abs(ms) <= MAX_DATE_MS ? ms : null;
}
