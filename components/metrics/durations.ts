// Durations as operators read them on the Metrics and run pages: "450 ms", "1.8 s", "3 min 20 s", "2 h 5 min".

/**
 * Rounded to the smallest unit shown before it is split, so 59.7 s reads "1 min" and 1 h 59 min 59 s "2 h", never
 * "60 s" or "1 h 60 min".
 */
export function spentTime(ms: number): string {
  if (Math.round(ms) < 1_000) return `${Math.round(ms)} ms`;
  const tenths = Math.round(ms / 100);
  if (tenths < 100) return `${(tenths / 10).toFixed(1)} s`;
  const seconds = Math.round(ms / 1_000);
  if (seconds < 3_600) {
    if (seconds < 60) return `${seconds} s`;
    const rest = seconds % 60;
    return rest === 0 ? `${Math.floor(seconds / 60)} min` : `${Math.floor(seconds / 60)} min ${rest} s`;
  }
  const minutes = Math.round(ms / 60_000);
  const rest = minutes % 60;
  return rest === 0 ? `${Math.floor(minutes / 60)} h` : `${Math.floor(minutes / 60)} h ${rest} min`;
}

/** The share of backoff in the time spent, as a whole percent; null when nothing was spent. */
export function backoffShare(backoffMs: number, callMs: number): number | null {
  const total = backoffMs + callMs;
  return total === 0 ? null : Math.round((backoffMs / total) * 100);
}
