// A metric chart's buckets in UTC words, and the one-sentence summary that is its text alternative.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bucketLabel, clockUtc, summarise, type ChartPoint } from "./chart-points";

const MIN = 60_000;
const point = (start: string, value: number): ChartPoint => ({ start, value });

describe("bucketLabel", () => {
  it("names a bucket of today by its clock times, in UTC", () => {
    expect(clockUtc("2026-01-01T14:05:00.000Z")).toBe("14:05");
    expect(bucketLabel("2026-01-01T14:05:00.000Z", MIN, "2026-01-01")).toBe("14:05–14:06 UTC");
  });

  it("adds the date for a bucket of another day, including one that ends past midnight", () => {
    expect(bucketLabel("2025-12-31T23:00:00.000Z", 60 * MIN, "2026-01-01")).toBe("2025-12-31 23:00–00:00 UTC");
  });
});

describe("summarise", () => {
  const today = "2026-01-01";
  const at = (minute: number) => new Date(Date.parse("2026-01-01T14:00:00.000Z") + minute * MIN).toISOString();

  it("says there were none", () => {
    expect(summarise([point(at(0), 0), point(at(1), 0)], MIN, "in the last hour", today)).toBe(
      "None in the last hour.",
    );
    expect(summarise([], MIN, "in the last hour", today)).toBe("None in the last hour.");
  });

  it("names the one busy bucket", () => {
    expect(summarise([point(at(0), 0), point(at(5), 4)], MIN, "in the last hour", today)).toBe(
      "4 in the last hour; all in 14:05–14:06 UTC.",
    );
  });

  it("names the busiest of several, the earliest of a tie", () => {
    const points = [point(at(1), 2), point(at(5), 3), point(at(7), 3), point(at(9), 1)];
    expect(summarise(points, MIN, "in the last hour", today)).toBe(
      "9 in the last hour; the most, 3, in 14:05–14:06 UTC.",
    );
  });

  it("counts every point and names a bucket that holds the most", () => {
    const series = fc.array(fc.nat({ max: 1_000 }), { minLength: 1, maxLength: 60 });
    fc.assert(
      fc.property(series, (values) => {
        const points = values.map((v, i) => point(at(i), v));
        const text = summarise(points, MIN, "in the window", today);
        const total = values.reduce((a, b) => a + b, 0);
        if (total === 0) {
          expect(text).toBe("None in the window.");
          return;
        }
        expect(text.startsWith(`${total} in the window; `)).toBe(true);
        const peak = points[values.indexOf(Math.max(...values))]!;
        expect(text).toContain(bucketLabel(peak.start, MIN, today));
      }),
    );
  });
});
