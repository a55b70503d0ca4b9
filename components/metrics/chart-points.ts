// Pure helpers for the metric charts: bucket labels in UTC and the one-sentence summary that is each chart's text
// alternative.

export interface ChartPoint {
  /** Bucket start, ISO 8601 UTC. */
  start: string;
  value: number;
}

/** "14:05", in UTC like every exact time in the console. */
export function clockUtc(iso: string): string {
  return iso.slice(11, 16);
}

/**
 * "14:05–14:06 UTC"; the date is added for buckets that do not start on `today` (YYYY-MM-DD, UTC), which the
 * caller takes from the series rather than the clock, so server and browser render the same words.
 */
export function bucketLabel(iso: string, bucketMs: number, today: string): string {
  const end = new Date(Date.parse(iso) + bucketMs).toISOString();
  const day = iso.slice(0, 10);
  const prefix = day === today ? "" : `${day} `;
  return `${prefix}${clockUtc(iso)}–${clockUtc(end)} UTC`;
}

/** "7 in the last hour; the most, 3, in 14:05–14:06 UTC." or "None in the last hour." */
export function summarise(points: ChartPoint[], bucketMs: number, windowLabel: string, today: string): string {
  const total = points.reduce((n, p) => n + p.value, 0);
  if (total === 0) return `None ${windowLabel}.`;
  const peak = points.reduce((best, p) => (p.value > best.value ? p : best));
  const busy = points.filter((p) => p.value > 0).length;
  const where =
    busy === 1
      ? `all in ${bucketLabel(peak.start, bucketMs, today)}`
      : `the most, ${peak.value}, in ${bucketLabel(peak.start, bucketMs, today)}`;
  return `${total} ${windowLabel}; ${where}.`;
}
