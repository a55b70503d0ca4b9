// The phase-literal check: lib/ledger writes no phase of its own, and the checker finds a planted one in each
// form a command could write it, while a phase that is only read passes.
import { describe, expect, test } from "vitest";
import { ledgerPhaseLiterals, formatPhaseLiteral, phaseLiteralsIn } from "./phase-literals";

const found = (text: string) => phaseLiteralsIn("lib/ledger/commands/planted.ts", text).map(formatPhaseLiteral);

describe("the phase-literal check", () => {
  test("finds no phase literal written in lib/ledger", () => {
    expect(ledgerPhaseLiterals(process.cwd()).map(formatPhaseLiteral)).toEqual([]);
  });

  test.each([
    ["an operation's phase", 'await writeOperation(tx, op, { phase: "FAILED", notBefore: null }, now);', "FAILED"],
    [
      "an audit record's phases",
      'tx.appendAudit([{ action: "x", fromPhase: op.phase, toPhase: "REJECTED" }]);',
      "REJECTED",
    ],
    ["an assignment", 'draft.phase = "AWAITING_APPROVAL";', "AWAITING_APPROVAL"],
    ["a cast", 'const changes = { phase: "CONFIRMED" as Phase };', "CONFIRMED"],
    ["a choice", 'const data = { phase: late ? "EXPIRED" : op.phase };', "EXPIRED"],
    ["a variable typed as a phase", 'const target: Phase | null = "UNKNOWN";', "UNKNOWN"],
    ["a variable named for one", 'const nextPhase = "DISPATCHED";', "DISPATCHED"],
  ])("finds %s", (_, text, phase) => {
    expect(found(text)).toEqual([
      `lib/ledger/commands/planted.ts:1: the phase "${phase}" is written as a literal; ` +
        "ask the gate (nextPhase, lib/retry-gate/phase-events.ts) and write its answer",
    ]);
  });

  test("gives the line of each literal", () => {
    expect(
      found('const a = 1;\nconst b = { toPhase: "FAILED" };\n\nop.phase = "UNKNOWN";').map((m) => m.split(": ")[0]),
    ).toEqual(["lib/ledger/commands/planted.ts:2", "lib/ledger/commands/planted.ts:4"]);
  });

  test.each([
    ["a comparison", 'if (op.phase === "UNKNOWN") return;'],
    ["a comparison that refuses", 'if (op.phase !== "AWAITING_APPROVAL") throw new Error("no");'],
    ["a query's filter", 'await db.operation.findMany({ where: { phase: "UNKNOWN", tool: { in: tools } } });'],
    ["the gate's answer", "await writeOperation(tx, op, changes, now, move);\nconst audit = { toPhase: move.to };"],
    ["a set of phases read", 'const ANSWERED_PHASES = new Set(["CONFIRMED", "FAILED"]);'],
    ["a literal that names no phase", 'skipped.push({ id, phase: "", why: "not_found" });'],
  ])("passes %s", (_, text) => {
    expect(found(text)).toEqual([]);
  });
});
