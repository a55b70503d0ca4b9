// What a crash spec leaves behind: its table in test-results/ (markdown to read, JSON for `npm run crash-table`), and
// a failure when docs/crash-windows.md no longer shows what it measured.
import fs from "node:fs";
import path from "node:path";
import { E2E_ENGINE } from "../scale-out/support/fresh-database";
import { CRASH_DOC, resultFile, staleness, type TableResult } from "./doc";
import { crashTable, summaryRows, type Cell, type TableSpec } from "./table";

export const ENGINE: TableResult["engine"] = E2E_ENGINE === "sqlite" ? "SQLite" : "PostgreSQL";

/** Writes the run's table; returns the failures, then whether the doc is stale, as one error message (or null). */
export function reportRun(spec: TableSpec, cells: Map<string, Cell>, startedAt: number): string | null {
  const seconds = Math.round((Date.now() - startedAt) / 1000);
  const markdown = crashTable(cells, spec, ENGINE, seconds);
  const result: TableResult = {
    table: spec.name,
    title: spec.title,
    engine: ENGINE,
    at: new Date().toISOString(),
    seconds,
    rows: summaryRows(cells, spec),
  };
  const json = resultFile(spec.name, ENGINE);
  fs.mkdirSync(path.dirname(json), { recursive: true });
  fs.writeFileSync(json, `${JSON.stringify(result, null, 2)}\n`);
  fs.writeFileSync(json.replace(/\.json$/, ".md"), markdown);
  console.log(markdown);
  const failures = [...cells].flatMap(([name, cell]) => ("failed" in cell ? [`${name}: ${cell.failed}`] : []));
  if (failures.length > 0) return `${failures.length} crash window(s) failed:\n\n${failures.join("\n\n")}`;
  return staleness(fs.readFileSync(CRASH_DOC, "utf8"), result);
}
