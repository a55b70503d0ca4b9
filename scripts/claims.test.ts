// Keeps docs/claims.md honest: every file, symbol and test title it names must still be there, every claim without a
// test must be listed as such, and every configuration variable and npm script README.md names must have a claim.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CLAIMS_FILE = "docs/claims.md";

/** One reference in a Kept by or Proved by cell: `path`, `path` › `symbol`, or `path` › "test title". */
export interface ClaimReference {
  file: string;
  symbol?: string;
  title?: string;
}

export interface ClaimRow {
  id: string;
  section: string;
  claim: string;
  keptBy: ClaimReference[];
  provedBy: ClaimReference[];
  /** The Proved by cell says "no test" (for the whole claim or a part of it). */
  untested: boolean;
}

export interface ClaimsDocument {
  rows: ClaimRow[];
  /** The ids listed under "Claims without a test". */
  listedWithoutTest: string[];
  /** Rows the parser could not read, as problems. */
  problems: string[];
}

const ROW_ID = /^\*\*(C\d+)\*\*/;
// A code span, optionally followed by › and a symbol in a code span or a title in double quotes (\" inside a title).
const REFERENCE = /`([^`]+)`(?:\s*›\s*(?:`([^`]+)`|"((?:[^"\\]|\\.)*)"))?/g;

/** Splits a Markdown table line into its cells (a `\|` stays inside its cell). */
function cells(line: string): string[] {
  const inner = line.trim().replace(/^\|/, "").replace(/\|$/, "");
  return inner.split(/(?<!\\)\|/).map((cell) => cell.trim());
}

function references(cell: string): ClaimReference[] {
  return [...cell.matchAll(REFERENCE)].map((match) => ({
    file: match[1]!,
    ...(match[2] !== undefined ? { symbol: match[2] } : {}),
    ...(match[3] !== undefined ? { title: match[3].replace(/\\(.)/g, "$1") } : {}),
  }));
}

/**
 * Reads the claim tables (columns Claim | Kept by | Proved by under each `##` section) and the "without a test" list.
 */
export function parseClaims(markdown: string): ClaimsDocument {
  const rows: ClaimRow[] = [];
  const listedWithoutTest: string[] = [];
  const problems: string[] = [];
  let section = "";
  let columns: { claim: number; keptBy: number; provedBy: number } | null = null;
  for (const line of markdown.split("\n")) {
    const heading = /^#{2,3}\s+(.*)$/.exec(line);
    if (heading) {
      section = heading[1]!.trim();
      columns = null;
      continue;
    }
    if (/^without a test/i.test(section) || /^claims without a test/i.test(section)) {
      const listed = /^\s*[-*]\s+\*\*(C\d+)\*\*/.exec(line);
      if (listed) listedWithoutTest.push(listed[1]!);
      continue;
    }
    if (!line.trim().startsWith("|")) {
      columns = null;
      continue;
    }
    const row = cells(line);
    if (row.every((cell) => /^:?-+:?$/.test(cell))) continue;
    if (columns === null) {
      const claim = row.findIndex((cell) => /^claim$/i.test(cell));
      const keptBy = row.findIndex((cell) => /^kept by$/i.test(cell));
      const provedBy = row.findIndex((cell) => /^proved by$/i.test(cell));
      if (claim < 0 || keptBy < 0 || provedBy < 0) {
        problems.push(`${section}: a table whose header is not Claim | Kept by | Proved by: ${line.trim()}`);
        columns = { claim: 0, keptBy: 1, provedBy: 2 };
      } else {
        columns = { claim, keptBy, provedBy };
      }
      continue;
    }
    const claim = row[columns.claim] ?? "";
    const id = ROW_ID.exec(claim)?.[1];
    if (!id) {
      problems.push(`${section}: a row without an id (**C<n>**): ${line.trim()}`);
      continue;
    }
    const provedCell = row[columns.provedBy] ?? "";
    rows.push({
      id,
      section,
      claim: claim.replace(ROW_ID, "").trim(),
      keptBy: references(row[columns.keptBy] ?? ""),
      provedBy: references(provedCell),
      untested: /\bno test\b/i.test(provedCell),
    });
  }
  return { rows, listedWithoutTest, problems };
}

/** A test call up to its title: it(, test.describe.serial( ... */
const TEST_CALL =
  /(?<![.\w$])(?:it|test|describe)(?:\.(?:skip|only|describe|concurrent|sequential|serial|fixme|fails|todo))*\s*\(\s*/g;
/** One string or template literal, and the `+` before the next one of a title written as a concatenation. */
const TITLE_PIECE = /(["'`])((?:\\[\s\S]|(?!\1)[^\\])*)\1/y;
const PLUS = /\s*\+\s*(?=["'`])/y;

/**
 * The title of every it(), test() and describe() in a test file's text, as written in the source: one literal, or
 * literals joined by `+` (a title too long for one line).
 */
export function testTitles(source: string): string[] {
  const titles: string[] = [];
  for (const call of source.matchAll(TEST_CALL)) {
    let at = call.index + call[0].length;
    let title: string | null = null;
    for (;;) {
      TITLE_PIECE.lastIndex = at;
      const piece = TITLE_PIECE.exec(source);
      if (!piece) break;
      title = (title ?? "") + (piece[1] === "`" ? piece[2]! : piece[2]!.replace(/\\(.)/g, "$1"));
      PLUS.lastIndex = at = TITLE_PIECE.lastIndex;
      if (!PLUS.exec(source)) break;
      at = PLUS.lastIndex;
    }
    if (title !== null) titles.push(title);
  }
  return titles;
}

export function hasTitle(titles: string[], wanted: string): boolean {
  return titles.some((title) => {
    if (title === wanted) return true;
    if (!title.includes("${")) return false;
    const parts = title.split(/\$\{[^}]*\}/);
    const pattern = new RegExp(`^${parts.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".+?")}$`);
    // The fixed prefix, without the space or bracket that opens the placeholder: `races (${engine})` → "races".
    const prefix = (parts[0] ?? "").replace(/[\s([{:,-]+$/, "");
    return pattern.test(wanted) || (prefix.length > 0 && wanted === prefix);
  });
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Every way the document no longer matches the repository at `root`, one sentence each, naming the row. */
export function checkClaims(document: ClaimsDocument, root: string): string[] {
  const problems = [...document.problems];
  const texts = new Map<string, string | null>();
  const text = (file: string): string | null => {
    if (!texts.has(file)) {
      const full = path.join(root, file);
      texts.set(file, fs.existsSync(full) && fs.statSync(full).isFile() ? fs.readFileSync(full, "utf8") : null);
    }
    return texts.get(file) ?? null;
  };
  const seen = new Set<string>();
  for (const row of document.rows) {
    const where = `${row.id} (${row.section})`;
    if (seen.has(row.id)) problems.push(`${where}: the id ${row.id} is used twice`);
    seen.add(row.id);
    if (row.keptBy.length === 0) problems.push(`${where}: Kept by names no file`);
    if (row.provedBy.length === 0 && !row.untested)
      problems.push(`${where}: Proved by names no test and does not say "no test"`);
    for (const [column, refs] of [
      ["Kept by", row.keptBy],
      ["Proved by", row.provedBy],
    ] as const) {
      for (const ref of refs) {
        if (!fs.existsSync(path.join(root, ref.file))) {
          problems.push(`${where}: ${column} names ${ref.file}, which does not exist`);
          continue;
        }
        if (column === "Proved by" && ref.title === undefined) {
          problems.push(`${where}: Proved by names ${ref.file} without a test title`);
        }
        if (ref.symbol === undefined && ref.title === undefined) continue;
        const source = text(ref.file);
        if (source === null) {
          problems.push(`${where}: ${ref.file} is a folder, so it has no symbol or test title to look for`);
          continue;
        }
        if (ref.symbol !== undefined && !new RegExp(`(?<![\\w$])${escapeRegExp(ref.symbol)}(?![\\w$])`).test(source)) {
          problems.push(`${where}: ${ref.file} no longer has the symbol ${ref.symbol}`);
        }
        if (ref.title !== undefined && !hasTitle(testTitles(source), ref.title)) {
          problems.push(`${where}: ${ref.file} has no test titled "${ref.title}"`);
        }
      }
    }
  }
  const untested = document.rows.filter((row) => row.untested).map((row) => row.id);
  const listed = new Set(document.listedWithoutTest);
  for (const id of untested) {
    if (!listed.has(id)) problems.push(`${id}: says "no test" but is not listed under "Claims without a test"`);
  }
  for (const id of listed) {
    if (!untested.includes(id))
      problems.push(`${id}: listed under "Claims without a test" but its row names no such gap`);
  }
  return problems;
}

describe("docs/claims.md", () => {
  const markdown = fs.readFileSync(path.join(ROOT, CLAIMS_FILE), "utf8");
  const document = parseClaims(markdown);

  it("every file, symbol and test title docs/claims.md names is still there", () => {
    expect(document.rows.length).toBeGreaterThan(0);
    expect(checkClaims(document, ROOT)).toEqual([]);
  });

  it("has a claim for every configuration variable and npm script README.md names", () => {
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    const configuration = readme.split(/^## /m).find((part) => part.startsWith("Configuration")) ?? "";
    const variables = [...configuration.matchAll(/^\|([^|]*)\|/gm)].flatMap((match) =>
      [...match[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((variable) => variable[1]!),
    );
    const scripts = [...readme.matchAll(/npm (?:run (?:-s )?)?(start|test|run [\w:-]+)/g)].map((match) =>
      match[1]!.replace(/^run /, ""),
    );
    const claimed = document.rows.map((row) => row.claim).join("\n");
    expect(variables.length).toBeGreaterThan(10);
    expect(variables.filter((variable) => !claimed.includes(variable))).toEqual([]);
    expect(scripts.filter((script) => !new RegExp(`npm (?:run )?${escapeRegExp(script)}\\b`).test(claimed))).toEqual(
      [],
    );
  });

  it("reports a missing file, symbol and test title, and an unlisted gap, naming each row", () => {
    const sample = [
      "## Sample",
      "",
      "| Claim | Kept by | Proved by |",
      "|---|---|---|",
      '| **C1** gone | `lib/no-such-room/gone.ts` | `lib/retry-gate/decide.test.ts` › "does not change its input" |',
      '| **C2** renamed | `lib/retry-gate/decide.ts` › `decideEverything` | `lib/retry-gate/decide.test.ts` › "a title nobody wrote" |',
      "| **C3** kept | `lib/retry-gate/decide.ts` › `decide` | no test |",
      "",
      "## Claims without a test",
      "",
    ].join("\n");
    expect(checkClaims(parseClaims(sample), ROOT)).toEqual([
      "C1 (Sample): Kept by names lib/no-such-room/gone.ts, which does not exist",
      "C2 (Sample): lib/retry-gate/decide.ts no longer has the symbol decideEverything",
      'C2 (Sample): lib/retry-gate/decide.test.ts has no test titled "a title nobody wrote"',
      'C3: says "no test" but is not listed under "Claims without a test"',
    ]);
  });

  it("reads titles in every quoting style, and a template title by its fixed prefix or its filled-in text", () => {
    const source = [
      'it("double \\"quoted\\"", () => {});',
      "test.describe('single', () => {});",
      "  test(",
      '    "wrapped by Prettier",',
      "  async () => {});",
      "describe(`races (${engine})`, () => {});",
      "/x/.test('not a title');",
      'it("a title too long " +',
      '  "for one line", () => {});',
    ].join("\n");
    const titles = testTitles(source);
    expect(titles).toEqual([
      'double "quoted"',
      "single",
      "wrapped by Prettier",
      "races (${engine})",
      "a title too long for one line",
    ]);
    expect(hasTitle(titles, "races")).toBe(true);
    expect(hasTitle(titles, "races (PostgreSQL)")).toBe(true);
    expect(hasTitle(titles, "not a title")).toBe(false);
  });
});
