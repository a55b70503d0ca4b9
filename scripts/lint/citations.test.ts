// The citation check: the repository cites only files and headings it holds, and the checker itself finds a dead
// file, a dead heading and a design note that is not in the repository, each with its file and line.
import { describe, expect, test } from "vitest";
import { anchorsOf, citationsIn, deadCitations, formatDeadCitation, repositoryDeadCitations, slug } from "./citations";

// Built from parts so that this file cites nothing itself.
const md = ".md";
/** A design note beside the repository, not in it: a clone does not have it. */
const OUTSIDE = ["..", "shared", "design", "API"].join("/") + md;
const GUIDE = [
  "# Guide",
  "",
  "## Four-eyes and quorum",
  "",
  "```",
  "# not a heading",
  "```",
  "## Four-eyes and quorum",
  "",
];

/** A repository of two files: the guide and `text` in lib/notes.ts. */
function check(text: string) {
  const docs = new Map([["docs/guide" + md, GUIDE.join("\n")]]);
  const read = (file: string) => docs.get(file) ?? null;
  return deadCitations(new Map([["lib/notes.ts", text]]), read).map(formatDeadCitation);
}

describe("the checker", () => {
  test("passes citations of a file and of a heading that exist, from the root or relative to the citing file", () => {
    expect(check(`// see docs/guide${md}, docs/guide${md}#four-eyes-and-quorum and ../docs/guide${md}#guide`)).toEqual(
      [],
    );
    expect(
      check(`// docs/guide${md} section "Four-eyes and quorum", and its repeat docs/guide${md}#four-eyes-and-quorum-1`),
    ).toEqual([]);
  });

  test("names a design note that is not in the repository, with file and line", () => {
    expect(check(`const a = 1;\n// as AUTHORITY${md} says`)).toEqual([
      `lib/notes.ts:2: AUTHORITY${md}: no file AUTHORITY${md} in the repository`,
    ]);
  });

  test("names a heading that does not exist, by anchor and by section name", () => {
    expect(check(`// docs/guide${md}#four-eyes\n// docs/guide${md} section "Notifications"`)).toEqual([
      `lib/notes.ts:1: docs/guide${md}#four-eyes: docs/guide${md} has no heading #four-eyes`,
      `lib/notes.ts:2: docs/guide${md} section "Notifications": docs/guide${md} has no heading #notifications`,
    ]);
  });

  test("a file outside the repository is dead even when it exists next to it; a URL is no citation", () => {
    expect(check(`// ${OUTSIDE}`)).toEqual([`lib/notes.ts:1: ${OUTSIDE}: no file ${OUTSIDE} in the repository`]);
    expect(check(`// https://example.com/docs/API${md}#x`)).toEqual([]);
  });

  test("a string literal that is a path alone is code reading a file, in source but not in docs", () => {
    expect(citationsIn(`path.join(root, "docs", "gone${md}")`, true)).toEqual([]);
    expect(citationsIn(`"gone${md}"`, false)).toHaveLength(1);
  });

  test("GitHub's anchors: markup and punctuation dropped, spaces to hyphens, repeats numbered, code fences skipped", () => {
    expect(slug("Who acts: principals, the `human gate` (AUTHORITY)")).toBe(
      "who-acts-principals-the-human-gate-authority",
    );
    expect(slug('One "Approve retry" click, hop by hop')).toBe("one-approve-retry-click-hop-by-hop");
    expect([...anchorsOf(GUIDE.join("\n"))]).toEqual(["guide", "four-eyes-and-quorum", "four-eyes-and-quorum-1"]);
  });
});

test("every file and heading the repository cites is in the repository", () => {
  const dead = repositoryDeadCitations(process.cwd()).map(formatDeadCitation);
  expect(dead, `dead citations:\n${dead.join("\n")}`).toEqual([]);
});
