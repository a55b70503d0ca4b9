// Durations on the Metrics page read the way an operator says them, at the precision that matters for their size.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { backoffShare, spentTime } from "./durations";

/** The milliseconds a text such as "1 h 5 min", "3 min 20 s", "1.8 s" or "450 ms" stands for. */
function readBack(text: string): number {
  const units: Record<string, number> = { h: 3_600_000, min: 60_000, s: 1_000, ms: 1 };
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/([\d.]+) (h|min|s|ms)\b/g)) total += Number(amount) * units[unit!]!;
  return total;
}

describe("spentTime", () => {
  it.each([
    [0, "0 ms"],
    [450, "450 ms"],
    [1_000, "1.0 s"],
    [1_800, "1.8 s"],
    [12_400, "12 s"],
    [60_000, "1 min"],
    [200_000, "3 min 20 s"],
    [3_600_000, "1 h"],
    [7_500_000, "2 h 5 min"],
  ])("%d ms reads as %s", (ms, text) => {
    expect(spentTime(ms)).toBe(text);
  });

  it.each([
    [999.6, "1.0 s"],
    [9_960, "10 s"],
    [59_700, "1 min"],
    [119_700, "2 min"],
    [3_599_700, "1 h"],
    [7_199_000, "2 h"],
  ])("rounds %d ms up into the next unit rather than writing 60 of a unit: %s", (ms, text) => {
    expect(spentTime(ms)).toBe(text);
  });

  it("never writes 60 seconds or 60 minutes, and reads back within half of its smallest unit", () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 30 * 86_400_000, noNaN: true }), (ms) => {
        const text = spentTime(ms);
        expect(text).not.toMatch(/\b60 (s|min)\b|\b1000 ms\b|\b10\.0 s\b/);
        const smallest = text.endsWith(" ms") ? 1 : /\.\d s$/.test(text) ? 100 : text.endsWith(" s") ? 1_000 : 60_000;
        expect(Math.abs(readBack(text) - ms)).toBeLessThanOrEqual(smallest / 2 + 1e-6);
      }),
    );
  });
});

describe("backoffShare", () => {
  it("is the backoff's whole percent of the time spent, and null when nothing was spent", () => {
    expect(backoffShare(0, 0)).toBeNull();
    expect(backoffShare(1, 2)).toBe(33);
    expect(backoffShare(500, 0)).toBe(100);
    expect(backoffShare(0, 500)).toBe(0);
  });

  it("stays a whole number from 0 to 100", () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), (backoff, call) => {
        fc.pre(backoff + call > 0);
        const share = backoffShare(backoff, call);
        expect(Number.isInteger(share)).toBe(true);
        expect(share).toBeGreaterThanOrEqual(0);
        expect(share).toBeLessThanOrEqual(100);
      }),
    );
  });
});
