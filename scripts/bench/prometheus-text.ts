// Reading counters from a Prometheus text exposition (Restate's metrics endpoint), to count a peer's work per call.

/** Parses `name{a="x",b="y"} value` (labels and a trailing timestamp optional); null for comments and blank lines. */
function parseSample(line: string): { name: string; labels: Record<string, string>; value: number } | null {
  const match = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line.trim());
  if (!match?.[1] || match[3] === undefined) return null;
  const labels: Record<string, string> = {};
  for (const [, key, raw] of (match[2] ?? "").matchAll(/([A-Za-z_]\w*)="((?:[^"\\]|\\.)*)"/g)) {
    if (key !== undefined && raw !== undefined)
      labels[key] = raw.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
  }
  return { name: match[1], labels, value: Number(match[3]) };
}

/**
 * The sum of every sample of metric `name` whose labels include `labels` (all of its series when none are given); 0 when
 * there is none, as a counter that has not counted yet is often absent.
 */
export function metricTotal(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const sample = parseSample(line);
    if (sample?.name !== name) continue;
    if (Object.entries(labels).every(([key, value]) => sample.labels[key] === value)) total += sample.value;
  }
  return total;
}
