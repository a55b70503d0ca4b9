// Retries per tool that jumped: a tool whose retries (attempts numbered 2 and up) in the current five minutes are at
// least five times its average per five minutes over the hour before, and at least a few (0 -> 1 is no spike).
import type { Ledger } from "@/lib/ledger/ledger";

export interface RetrySpike {
  tool: string;
  retries: number;
  hourAverage: number;
  windowStart: Date;
  windowEnd: Date;
}

export const SPIKE_WINDOW_MS = 5 * 60_000;
/** The hour before the window, in windows. */
const BASELINE_WINDOWS = 12;
export const SPIKE_FACTOR = 5;
/** Fewer retries than this in the window is never a spike, whatever the hour before. */
export const SPIKE_FLOOR = 5;

/** The window `now` falls in: aligned to five minutes, so one spike keeps one start while it lasts. */
export function spikeWindowStart(now: Date): Date {
  return new Date(Math.floor(now.getTime() / SPIKE_WINDOW_MS) * SPIKE_WINDOW_MS);
}

export function isSpike(retries: number, hourAverage: number): boolean {
  return retries >= SPIKE_FLOOR && retries >= SPIKE_FACTOR * hourAverage;
}

export async function retrySpikes(ledger: Ledger, now: Date): Promise<RetrySpike[]> {
  const windowStart = spikeWindowStart(now);
  const baselineStart = new Date(windowStart.getTime() - BASELINE_WINDOWS * SPIKE_WINDOW_MS);
  const retries = await ledger.db.attempt.findMany({
    where: { number: { gt: 1 }, dispatchedAt: { gte: baselineStart, lte: now } },
    select: { dispatchedAt: true, operation: { select: { tool: true } } },
  });
  const counts = new Map<string, { window: number; baseline: number }>();
  for (const r of retries) {
    const count = counts.get(r.operation.tool) ?? { window: 0, baseline: 0 };
    if (r.dispatchedAt >= windowStart) count.window += 1;
    else count.baseline += 1;
    counts.set(r.operation.tool, count);
  }
  const spikes: RetrySpike[] = [];
  for (const [tool, count] of counts) {
    const hourAverage = count.baseline / BASELINE_WINDOWS;
    if (isSpike(count.window, hourAverage)) {
      spikes.push({ tool, retries: count.window, hourAverage, windowStart, windowEnd: now });
    }
  }
  return spikes.sort((a, b) => a.tool.localeCompare(b.tool));
}
