// Durations as operators read them on the Metrics and run pages: "450 ms", "1.8 s", "3 min 20 s", "2 h 5 min".

export function spentTime(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  if (ms < 3_600_000) {
    const minutes = Math.floor(ms / 60_000);
    const seconds = Math.round((ms % 60_000) / 1_000);
    return seconds === 0 ? `${minutes} min` : `${minutes} min ${seconds} s`;
  }
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.round((ms % 3_600_000) / 60_000);
  return minutes === 0 ? `${hours} h` : `${hours} h ${minutes} min`;
}

/** The share of backoff in the time spent, as a whole percent; null when nothing was spent. */
export function backoffShare(backoffMs: number, callMs: number): number | null {
  const total = backoffMs + callMs;
  return total === 0 ? null : Math.round((backoffMs / total) * 100);
}
