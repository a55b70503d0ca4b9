// Summaries the benchmarks print: percentiles of latency samples and min/median/max over rounds.

/** The p-th percentile (0..100) of samples by the nearest-rank method; NaN for no samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

export interface Spread {
  min: number;
  median: number;
  max: number;
}

export function spread(values: readonly number[]): Spread {
  return { min: Math.min(...values), median: percentile(values, 50), max: Math.max(...values) };
}
