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

  it("refuses a target that names no figure", () => {
    const broken = result([1], ">=", 1);
    broken.targets[0] = { ...broken.targets[0]!, figure: "missing" };
    expect(() => targetOutcomes(broken)).toThrow(/names no figure "missing"/);
  });
});
