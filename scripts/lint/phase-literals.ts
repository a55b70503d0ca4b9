// The gate gives the phase: no file of the ledger (lib/ledger: its commands, store, runs, bulk jobs...) writes a phase
// literal of its own (docs/architecture.md#the-retry-gate-gives-every-phase). A literal that reads the current phase (a comparison, a
// query's `where` filter) is allowed; one that is written (an operation's or an audit record's phase, an assignment to
// a phase, a variable typed as a phase) is found here, with its file and line.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { TRANSITIONS } from "../../lib/retry-gate/phases";

/** The folder whose files may not write a phase literal. */
export const LEDGER_DIR = "lib/ledger";

/** Every phase's name: a literal that is none (the empty phase of an item not found, say) writes no phase. */
const PHASE_NAMES: ReadonlySet<string> = new Set(Object.keys(TRANSITIONS));

export interface PhaseLiteral {
  file: string;
  line: number;
  /** The written phase, as the source has it. */
  text: string;
}

/** A name that holds a phase: phase, fromPhase, toPhase, target phases and the like. */
const PHASE_NAME = /(^p|P)hase$/;

/** Whether the expression is, or may evaluate to, a string literal (through a cast, brackets, `?:`, `??` or `||`). */
function literalsIn(node: ts.Expression): ts.StringLiteralLike[] {
  if (ts.isStringLiteralLike(node)) return [node];
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node)) {
    return literalsIn(node.expression);
  }
  if (ts.isTypeAssertionExpression(node)) return literalsIn(node.expression);
  if (ts.isConditionalExpression(node)) return [...literalsIn(node.whenTrue), ...literalsIn(node.whenFalse)];
  if (ts.isBinaryExpression(node)) {
    const kind = node.operatorToken.kind;
    if (kind === ts.SyntaxKind.QuestionQuestionToken || kind === ts.SyntaxKind.BarBarToken) {
      return [...literalsIn(node.left), ...literalsIn(node.right)];
    }
  }
  return [];
}

function nameOf(node: ts.Node): string | null {
  if (ts.isIdentifier(node) || ts.isStringLiteral(node)) return node.text;
  if (ts.isPropertyAccessExpression(node)) return node.name.text;
  if (ts.isElementAccessExpression(node) && ts.isStringLiteral(node.argumentExpression)) {
    return node.argumentExpression.text;
  }
  return null;
}

/** Inside a query's `where` filter, a phase is read, not written. */
function inQueryFilter(node: ts.Node): boolean {
  for (let at: ts.Node | undefined = node.parent; at !== undefined; at = at.parent) {
    if (ts.isPropertyAssignment(at) && nameOf(at.name) === "where") return true;
    if (ts.isFunctionLike(at)) return false;
  }
  return false;
}

/** The phase literals `text` (the file `file`) writes. */
export function phaseLiteralsIn(file: string, text: string): PhaseLiteral[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: PhaseLiteral[] = [];
  const report = (literals: ts.StringLiteralLike[]) => {
    for (const literal of literals) {
      if (!PHASE_NAMES.has(literal.text)) continue;
      const { line } = source.getLineAndCharacterOfPosition(literal.getStart(source));
      found.push({ file, line: line + 1, text: literal.text });
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAssignment(node) && PHASE_NAME.test(nameOf(node.name) ?? "") && !inQueryFilter(node)) {
      report(literalsIn(node.initializer));
    } else if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      PHASE_NAME.test(nameOf(node.left) ?? "")
    ) {
      report(literalsIn(node.right));
    } else if (ts.isVariableDeclaration(node) && node.initializer !== undefined) {
      const typedAsPhase = node.type !== undefined && /\bPhase\b/.test(node.type.getText(source));
      if (typedAsPhase || PHASE_NAME.test(nameOf(node.name) ?? "")) report(literalsIn(node.initializer));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every phase literal a ledger file (not a test) under `root`'s lib/ledger writes. */
export function ledgerPhaseLiterals(root: string): PhaseLiteral[] {
  return readdirSync(path.join(root, LEDGER_DIR), { recursive: true, encoding: "utf8" })
    .map((name) => name.split(path.sep).join("/"))
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"))
    .sort()
    .flatMap((name) =>
      phaseLiteralsIn(`${LEDGER_DIR}/${name}`, readFileSync(path.join(root, LEDGER_DIR, name), "utf8")),
    );
}

export function formatPhaseLiteral(found: PhaseLiteral): string {
  return (
    `${found.file}:${found.line}: the phase "${found.text}" is written as a literal; ` +
    `ask the gate (nextPhase, lib/retry-gate/phase-events.ts) and write its answer`
  );
}
