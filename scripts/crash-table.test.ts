// npm run crash-table's pieces (e2e/crash/doc.ts): a measured table goes into docs/crash-windows.md between its
// markers, and a run whose rows differ from the doc's is told to regenerate it; timings never count.
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { CRASH_DOC, documentedRows, ENGINES, staleness, TABLES, withResult, type TableResult } from "../e2e/crash/doc";
import { WORKER_TABLE } from "../e2e/crash/table";
import { SERVER_TABLE } from "../e2e/crash/server-windows";

const ROWS = ["| window | PURE |", "|---|---|", "| after the plan | CONFIRMED · 0 effects, 1 read |"];

function measured(rows: string[], seconds = 80): TableResult {
  return { table: "server", title: "Server-side", engine: "SQLite", at: "2026-12-02T08:00:00.000Z", seconds, rows };
}

describe("crash-table", () => {
  it("adds a missing section, then rewrites it in place and leaves the rest of the doc alone", () => {
    const doc = withResult("# Crash windows\n\nProse.\n", measured(ROWS));
    expect(documentedRows(doc, measured(ROWS))).toEqual(ROWS);
    const changed = [...ROWS.slice(0, 2), "| after the plan | CONFIRMED · 0 effects, 2 reads |"];
    const again = withResult(`${doc}\nMore prose.\n`, measured(changed));
    expect(documentedRows(again, measured(changed))).toEqual(changed);
    expect(again).toContain("Prose.");
    expect(again).toContain("More prose.");
    expect(again.match(/<!-- crash-table server-sqlite/g)).toHaveLength(1);
  });

  it("finds the doc current when the rows match, whatever the run took", () => {
    const doc = withResult("", measured(ROWS, 80));
    expect(staleness(doc, measured(ROWS, 312))).toBeNull();
  });

  it("tells a run whose rows differ from the doc's to regenerate it, naming the rows", () => {
    const doc = withResult("", measured(ROWS));
    const drifted = [...ROWS.slice(0, 2), "| after the plan | CONFIRMED · 0 effects, 2 reads |"];
    const stale = staleness(doc, measured(drifted));
    expect(stale).toContain("run npm run crash-table");
    expect(stale).toContain("2 reads");
    expect(staleness("# no tables yet\n", measured(ROWS))).toContain("has no section");
  });

  it("the committed doc shows every table on both engines, one row per window", () => {
    const doc = fs.readFileSync(CRASH_DOC, "utf8");
    for (const spec of [WORKER_TABLE, SERVER_TABLE]) {
      expect(TABLES).toContain(spec.name);
      for (const engine of ENGINES) {
        const rows = documentedRows(doc, { table: spec.name, engine });
        expect(rows, `${spec.name} on ${engine}`).toHaveLength(spec.rows.length + 2);
        expect(rows?.join("\n"), `${spec.name} on ${engine}`).not.toContain("FAILED");
      }
    }
  });
});
