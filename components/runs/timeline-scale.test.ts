// The run page's time axis: a moment's place on it, and a handful of round ticks from its start to its end.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { offsetLabel, position, ticks } from "./timeline-scale";

const scale = fc
  .record({ from: fc.integer({ min: 0, max: 2e12 }), span: fc.integer({ min: 1, max: 30 * 86_400_000 }) })
  .map(({ from, span }) => ({ from, to: from + span }));

describe("position", () => {
  it("places the start at 0, the end at 100 and the middle at 50", () => {
    const s = { from: 1_000, to: 3_000 };
    expect([position(s, 1_000), position(s, 2_000), position(s, 3_000)]).toEqual([0, 50, 100]);
  });

  it("keeps moments outside the axis on its edges, and puts everything at the start of an empty axis", () => {
    expect(position({ from: 1_000, to: 3_000 }, 0)).toBe(0);
    expect(position({ from: 1_000, to: 3_000 }, 9_000)).toBe(100);
    expect(position({ from: 5_000, to: 5_000 }, 7_000)).toBe(0);
  });

  it("is between 0 and 100 and never moves a later moment before an earlier one", () => {
    fc.assert(
      fc.property(scale, fc.integer({ min: 0, max: 3e12 }), fc.integer({ min: 0, max: 3e12 }), (s, a, b) => {
        const [early, late] = a <= b ? [a, b] : [b, a];
        expect(position(s, early)).toBeGreaterThanOrEqual(0);
        expect(position(s, late)).toBeLessThanOrEqual(100);
        expect(position(s, early)).toBeLessThanOrEqual(position(s, late));
      }),
    );
  });
});

describe("ticks", () => {
  it("labels a 10-second run every 2 seconds, from its start", () => {
    expect(ticks({ from: 0, to: 10_000 })).toEqual([0, 2_000, 4_000, 6_000, 8_000, 10_000]);
  });

  it("puts one tick at the start of an empty axis", () => {
    expect(ticks({ from: 5, to: 5 })).toEqual([0]);
  });

  // From three ticks up the round steps (1, 2, 5, 10, …, at most 2.5 apart) always fit at least one step on the axis.
  it("starts at 0, steps evenly, stays on the axis and offers at most `most` steps", () => {
    fc.assert(
      fc.property(scale, fc.integer({ min: 3, max: 12 }), (s, most) => {
        const marks = ticks(s, most);
        const span = s.to - s.from;
        expect(marks[0]).toBe(0);
        expect(marks.at(-1)).toBeLessThanOrEqual(span);
        expect(marks.length - 1).toBeLessThanOrEqual(most);
        const step = marks[1]! - marks[0]!;
        marks.forEach((t, i) => expect(t).toBe(i * step));
        // The next step would have left the axis: the ticks reach its end.
        expect(marks.at(-1)! + step).toBeGreaterThan(span);
      }),
    );
  });
});

describe("offsetLabel", () => {
  it.each([
    [0, "0"],
    [500, "+500 ms"],
    [1_500, "+1.5 s"],
    [30_000, "+30 s"],
    [120_000, "+2 min"],
    [90_000, "+1.5 min"],
    [7_200_000, "+2 h"],
  ])("%d ms after the start reads %s", (ms, text) => {
    expect(offsetLabel(ms)).toBe(text);
  });
});
