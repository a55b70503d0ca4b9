// The run page's time axis as pure arithmetic: where a moment sits on it (a percentage) and the round ticks to label.

export interface TimeScale {
  from: number;
  to: number;
}

/** A moment's place on the axis, 0 to 100; a span of zero puts everything at the start. */
export function position(scale: TimeScale, at: number): number {
  const span = scale.to - scale.from;
  if (span <= 0) return 0;
  return Math.min(100, Math.max(0, ((at - scale.from) / span) * 100));
}

const STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000,
  900_000, 1_800_000, 3_600_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000,
];

/** Ticks at a round step after the start, at most about `most` of them, as offsets (ms) from the start. */
export function ticks(scale: TimeScale, most = 6): number[] {
  const span = scale.to - scale.from;
  if (span <= 0) return [0];
  const step = STEPS.find((s) => span / s <= most) ?? Math.ceil(span / most);
  const out: number[] = [];
  for (let t = 0; t <= span; t += step) out.push(t);
  return out;
}

/** "+1.5 s", "+2 min": how far after the run's start a tick is. */
export function offsetLabel(ms: number): string {
  if (ms === 0) return "0";
  if (ms < 1_000) return `+${ms} ms`;
  if (ms < 60_000) return `+${Number((ms / 1_000).toFixed(1))} s`;
  if (ms < 3_600_000) return `+${Number((ms / 60_000).toFixed(1))} min`;
  return `+${Number((ms / 3_600_000).toFixed(1))} h`;
}
