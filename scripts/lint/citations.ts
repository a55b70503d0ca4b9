// Citations that lead somewhere: every Markdown file a source file or a doc names is a file of this repository, and
// every heading it names is a heading of that file, by GitHub's anchor rules. The rules: docs/citations.md#how-to-cite.
// `npx tsx scripts/lint/dead-citations.ts` prints each dead citation with file:line; scripts/lint/citations.test.ts
// runs the same check in the unit tests.
import fs from "node:fs";
import path from "node:path";

/** A citation a file makes: the line it is on, the path as written and the heading's anchor, if it names one. */
export interface Citation {
  line: number;
  target: string;
  anchor: string | null;
  text: string;
}

export interface DeadCitation {
  file: string;
  line: number;
  citation: string;
  reason: string;
}

/** The files the check reads: the repository as a reader has it, without dependencies and generated output. */
const SCANNED = /\.(ts|tsx|mjs|cjs|js|md|py|sh|toml|prisma|css)$/;
const SKIP = new Set([
  "node_modules",
  ".git",
  ".data",
  ".venv",
  "__pycache__",
  ".pytest_cache",
  "lib/platform/generated",
]);
const SKIP_OUTPUT = new Set(["test-results", "playwright-report", "bench-results"]);

/**
 * A path ending in `.md`, not inside a URL (nothing of a path or host right before it), then either `#anchor` or
 * `section "Heading"`. The heading's text is turned into its anchor, so both forms are checked the same way.
 */
const CITATION =
  /(?<![\p{L}\p{N}_./:@-])((?:\.\.?\/)*[\p{L}\p{N}_-][\p{L}\p{N}_./-]*\.md)(?![\p{L}\p{N}_])(?:#([\p{L}\p{N}_-]+)|,? section "([^"]+)")?/gu;

/**
 * Every citation of a Markdown file in `text`, with its line number (1-based). In source code, a string literal that
 * is the path alone (`path.join(root, "docs", "claims.md")`) is code reading a file, not a citation: the code fails
 * by itself when the file is gone.
 */
export function citationsIn(text: string, source: boolean): Citation[] {
  const found: Citation[] = [];
  text.split("\n").forEach((content, index) => {
    for (const match of content.matchAll(CITATION)) {
      // Group 1 always takes part in a match; the anchor and the heading are one or the other, or neither.
      const [cited, target = "", anchor, heading] = match;
      const before = content[match.index - 1];
      if (source && (before === '"' || before === "'") && content[match.index + cited.length] === before) continue;
      found.push({ line: index + 1, target, anchor: anchor ?? (heading ? slug(heading) : null), text: cited });
    }
  });
  return found;
}

/** GitHub's anchor for a heading's text: inline markup dropped, lowercased, punctuation removed, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/[`*]/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of a Markdown file's headings (ATX headings outside fenced code), repeats numbered as GitHub does. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | null = null;
  for (const line of markdown.split("\n")) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      continue;
    }
    const heading = fence === null ? /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1] : undefined;
    if (heading === undefined) continue;
    const base = slug(heading);
    const repeats = seen.get(base) ?? 0;
    seen.set(base, repeats + 1);
    anchors.add(repeats === 0 ? base : `${base}-${repeats}`);
  }
  return anchors;
}

/**
 * The file a citation in `from` names, relative to `from`'s folder first and then to the repository root, or null
 * when neither is a file inside the repository. `read` answers a repository path's text, or null if there is none.
 */
function resolveTarget(from: string, target: string, read: (file: string) => string | null): string | null {
  for (const base of [path.posix.dirname(from), ""]) {
    const candidate = path.posix.normalize(path.posix.join(base, target));
    if (candidate.startsWith("../") || path.posix.isAbsolute(candidate)) continue;
    if (read(candidate) !== null) return candidate;
  }
  return null;
}

/** Every dead citation in `files` (repository path → text); `read` reads any repository file the citations name. */
export function deadCitations(files: Map<string, string>, read: (file: string) => string | null): DeadCitation[] {
  const dead: DeadCitation[] = [];
  const anchors = new Map<string, Set<string>>();
  for (const [file, text] of files) {
    for (const citation of citationsIn(text, !file.endsWith(".md"))) {
      const where = { file, line: citation.line, citation: citation.text };
      const resolved = resolveTarget(file, citation.target, read);
      if (resolved === null) {
        dead.push({ ...where, reason: `no file ${citation.target} in the repository` });
        continue;
      }
      if (citation.anchor === null) continue;
      if (!anchors.has(resolved)) anchors.set(resolved, anchorsOf(read(resolved) ?? ""));
      if (!anchors.get(resolved)?.has(citation.anchor)) {
        dead.push({ ...where, reason: `${resolved} has no heading #${citation.anchor}` });
      }
    }
  }
  return dead;
}

/** The repository's scanned files below `root`, as paths relative to it. */
export function repositoryFiles(root: string, dir = ""): string[] {
  const files: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const relative = path.posix.join(dir, entry.name);
    if (SKIP.has(entry.name) || SKIP.has(relative) || entry.name.startsWith(".next")) continue;
    if (dir === "" && SKIP_OUTPUT.has(entry.name)) continue;
    if (entry.isDirectory()) files.push(...repositoryFiles(root, relative));
    else if (SCANNED.test(entry.name)) files.push(relative);
  }
  return files;
}

/** The dead citations of the repository at `root`. */
export function repositoryDeadCitations(root: string): DeadCitation[] {
  const read = (file: string): string | null => {
    const absolute = path.join(root, file);
    return fs.existsSync(absolute) && fs.statSync(absolute).isFile() ? fs.readFileSync(absolute, "utf8") : null;
  };
  const files = new Map(repositoryFiles(root).map((file) => [file, read(file) ?? ""]));
  return deadCitations(files, read);
}

/** One line per dead citation: `file:line: citation: reason`. */
export function formatDeadCitation(dead: DeadCitation): string {
  return `${dead.file}:${dead.line}: ${dead.citation}: ${dead.reason}`;
}
