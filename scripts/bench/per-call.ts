// Work per call: counters read before and after some calls, each difference divided by the number of calls.

/** `(after - before) / calls` for every counter of `after` (a counter missing before counts from 0). */
export function perCall(
  before: Record<string, number>,
  after: Record<string, number>,
  calls: number,
): Record<string, number> {
  if (!(calls > 0)) throw new Error(`work per call needs at least one call, got ${calls}`);
  return Object.fromEntries(
    Object.entries(after).map(([name, value]) => [name, (value - (before[name] ?? 0)) / calls]),
  );
}
