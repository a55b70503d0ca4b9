// docs/security.md's role-matrix table: rendered from matrix.ts, and parsed back so the spec can prove the two agree.
import { readFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../fixtures/test-env";
import { expected, MATRIX, PRINCIPALS, rowId } from "./matrix";

export const SECURITY_DOC = path.join(REPO_ROOT, "docs", "security.md");
const BEGIN = "<!-- role-matrix:begin -->";
const END = "<!-- role-matrix:end -->";

const cell = (text: string) => `\`${text}\``;

/** The table as it must stand between the markers in docs/security.md. */
export function renderMatrixTable(): string {
  const header = `| route or action | ${PRINCIPALS.join(" | ")} |`;
  const rule = `|${" --- |".repeat(PRINCIPALS.length + 1)}`;
  const rows = MATRIX.map(
    (row) => `| ${cell(rowId(row))} | ${PRINCIPALS.map((p) => cell(expected(row, p))).join(" | ")} |`,
  );
  return [header, rule, ...rows].join("\n");
}

/** The table between the markers, as row id -> principal -> cell; throws if the markers or the header are missing. */
export function documentedMatrix(markdown = readFileSync(SECURITY_DOC, "utf8")): Map<string, Map<string, string>> {
  const start = markdown.indexOf(BEGIN);
  const end = markdown.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${SECURITY_DOC} has no ${BEGIN} ... ${END} section`);
  const lines = markdown
    .slice(start + BEGIN.length, end)
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.startsWith("|"));
  const cells = (line: string) =>
    line
      .slice(1, line.endsWith("|") ? -1 : undefined)
      .split("|")
      .map((c) => c.trim().replace(/^`(.*)`$/, "$1"));
  const [header, , ...body] = lines;
  const columns = cells(header ?? "").slice(1);
  const table = new Map<string, Map<string, string>>();
  for (const line of body) {
    const [id = "", ...values] = cells(line);
    table.set(id, new Map(columns.map((c, i) => [c, values[i] ?? ""])));
  }
  return table;
}

export { BEGIN as MATRIX_BEGIN, END as MATRIX_END };
