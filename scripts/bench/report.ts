// The terminal table of a benchmark run and the target checks (met or not) written beside the figures.
import { spread } from "./stats";
import type { BenchResult, Figure, TargetCheck } from "./types";

export interface TargetOutcome extends TargetCheck {
  value: number;
  met: boolean;
  /** The median of the `beside` figure, when the target names one. */
  besideValue?: number;
}

function figureNamed(result: BenchResult, target: TargetCheck, label: string): Figure {
  const figure = result.figures.find((f) => f.label === label);
  if (!figure) throw new Error(`target "${target.label}" names no figure "${label}"`);
  return figure;
}

export function targetOutcomes(result: BenchResult): TargetOutcome[] {
  return result.targets.map((target) => {
    const value = spread(figureNamed(result, target, target.figure).rounds)[target.statistic];
    const met =
      target.comparison === ">="
        ? value >= target.limit
        : target.comparison === "<="
          ? value <= target.limit
          : value < target.limit;
    if (target.beside === undefined) return { ...target, value, met };
    return { ...target, value, met, besideValue: spread(figureNamed(result, target, target.beside).rounds).median };
  });
}

function format(value: number): string {
  if (!Number.isFinite(value)) return "-";
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, col) => Math.max(...rows.map((row) => (row[col] ?? "").length))) ?? [];
  return rows
    .map((row) =>
      row.map((cell, col) => (col === 0 ? cell.padEnd(widths[col] ?? 0) : cell.padStart(widths[col] ?? 0))).join("  "),
    )
    .join("\n");
}

export function printResults(
  results: { name: string; seconds: number; loadAverage: { start: number; end: number }; result: BenchResult }[],
): void {
  const figures: string[][] = [["figure", "unit", "min", "median", "max"]];
  const targets: string[][] = [["target", "statistic", "value", "limit", "met", "beside (median)"]];
  for (const { name, seconds, loadAverage, result } of results) {
    const load = `load average ${format(loadAverage.start)} to ${format(loadAverage.end)}`;
    figures.push([`[${name}] (${seconds} s, ${load})`, "", "", "", ""]);
    for (const figure of result.figures) {
      const s = spread(figure.rounds);
      figures.push([`  ${figure.label}`, figure.unit, format(s.min), format(s.median), format(s.max)]);
    }
    for (const t of targetOutcomes(result)) {
      targets.push([
        `[${name}] ${t.label}`,
        t.statistic,
        format(t.value),
        `${t.comparison} ${format(t.limit)}`,
        t.met ? "yes" : "NO",
        t.beside === undefined ? "" : `${t.beside} ${format(t.besideValue ?? Number.NaN)}`,
      ]);
    }
  }
  console.log(`\n${table(figures)}\n`);
  if (targets.length > 1) console.log(table(targets));
}
