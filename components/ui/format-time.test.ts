// Times in the console: "3 min ago" rounded down in whole units, and the exact UTC instant behind it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatExactUtc, formatRelativeTime, toEpochMs } from "./format-time";

const NOW = Date.parse("2026-01-01T12:00:00.000Z");
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

describe("formatRelativeTime", () => {
  it.each([
    [0, "just now"],
    [59_999, "just now"],
    [-30_000, "in under a minute"],
    [MIN, "1 min ago"],
    [59 * MIN + 59_999, "59 min ago"],
    [HOUR, "1 h ago"],
    [2 * HOUR + 5 * MIN, "2 h 5 min ago"],
    [12 * HOUR + 5 * MIN, "12 h ago"],
    [DAY + 3 * HOUR, "1 d 3 h ago"],
    [12 * DAY + 3 * HOUR, "12 d ago"],
    [-4 * MIN, "in 4 min"],
    [-(DAY + HOUR), "in 1 d 1 h"],
  ])("%d ms before now reads %s", (ago, text) => {
    expect(formatRelativeTime(NOW - ago, NOW)).toBe(text);
  });

  it("never rounds up: the span it names is at most the real one", () => {
    const units: Record<string, number> = { d: DAY, h: HOUR, min: MIN };
    fc.assert(
      fc.property(fc.integer({ min: MIN, max: 400 * DAY }), (ago) => {
        const text = formatRelativeTime(NOW - ago, NOW);
        expect(text).toMatch(/ ago$/);
        let named = 0;
        for (const [, n, unit] of text.matchAll(/(\d+) (d|h|min)\b/g)) named += Number(n) * units[unit!]!;
        expect(named).toBeLessThanOrEqual(ago);
        expect(named).toBeGreaterThan(0);
      }),
    );
  });

  it("says the future as 'in …' and the past as '… ago', the same span either way", () => {
    fc.assert(
      fc.property(fc.integer({ min: MIN, max: 400 * DAY }), (span) => {
        const past = formatRelativeTime(NOW - span, NOW);
        const future = formatRelativeTime(NOW + span, NOW);
        expect(future).toBe(`in ${past.replace(/ ago$/, "")}`);
      }),
    );
  });
});

describe("formatExactUtc", () => {
  it("writes the instant in UTC to the millisecond", () => {
    expect(formatExactUtc(Date.parse("2025-11-30T14:47:03.120Z"))).toBe("2025-11-30 14:47:03.120 UTC");
  });
});

describe("toEpochMs", () => {
  it("reads a Date, an ISO string and epoch milliseconds alike", () => {
    expect(toEpochMs(new Date(NOW))).toBe(NOW);
    expect(toEpochMs("2026-01-01T12:00:00.000Z")).toBe(NOW);
    expect(toEpochMs(NOW)).toBe(NOW);
  });

  it("gives null for what is not a time a Date can hold, so formatting it cannot throw", () => {
    for (const bad of ["yesterday", "", Number.NaN, Number.POSITIVE_INFINITY, 8.64e15 + 1, new Date("nope")]) {
      expect(toEpochMs(bad)).toBeNull();
    }
    fc.assert(
      fc.property(fc.double(), (n) => {
        const ms = toEpochMs(n);
        if (ms !== null) expect(() => formatExactUtc(ms)).not.toThrow();
      }),
    );
  });
});
