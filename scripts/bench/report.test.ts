import { describe, expect, it } from "vitest";
import { targetOutcomes } from "./report";
import type { BenchResult } from "./types";

const result = (rounds: number[], comparison: ">=" | "<=" | "<", limit: number): BenchResult => ({
  figures: [{ label: "opledger SQLite / Restate calls/s", unit: "ratio", rounds }],
  targets: [{ label: "t", figure: "opledger SQLite / Restate calls/s", statistic: "median", comparison, limit }],
  notes: {},
});

describe("targetOutcomes", () => {
  it("checks a ratio's median against the limit, not its best round", () => {
    const [outcome] = targetOutcomes(result([0.31, 1.4, 0.28], ">=", 1));
    expect(outcome).toMatchObject({ value: 0.31, met: false });
  });

  it("meets an at-least target at the limit and an at-most target at the limit", () => {
    expect(targetOutcomes(result([1, 1, 1], ">=", 1))[0]?.met).toBe(true);
    expect(targetOutcomes(result([1, 1, 1], "<=", 1))[0]?.met).toBe(true);
    expect(targetOutcomes(result([1, 1, 1], "<", 1))[0]?.met).toBe(false);
  });

  it("records the median of the figure a target is printed beside", () => {
    const withLoad = result([1.5, 2.5, 1.9], "<=", 2);
    withLoad.figures.push({ label: "load average, 1 minute", unit: "", rounds: [9, 3, 4] });
    withLoad.targets[0] = { ...withLoad.targets[0]!, beside: "load average, 1 minute" };
    expect(targetOutcomes(withLoad)[0]).toMatchObject({ value: 1.9, met: true, besideValue: 4 });
    expect(targetOutcomes(result([1], "<=", 2))[0]).not.toHaveProperty("besideValue");
  });

  it("refuses a target beside a figure that does not exist", () => {
    const broken = result([1], "<=", 2);
    broken.targets[0] = { ...broken.targets[0]!, beside: "load average" };
    expect(() => targetOutcomes(broken)).toThrow(/names no figure "load average"/);
  });

  it("refuses a target that names no figure", () => {
    const broken = result([1], ">=", 1);
    broken.targets[0] = { ...broken.targets[0]!, figure: "missing" };
    expect(() => targetOutcomes(broken)).toThrow(/names no figure "missing"/);
  });
});
