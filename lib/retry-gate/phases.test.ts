// Tests for the phase table: every (from, to) pair is legal exactly when the table lists it.
import { describe, expect, test } from "vitest";
import { IllegalTransitionError, TRANSITIONS, assertTransition, isTerminal } from "./phases";
import { PHASES, type Phase } from "./types";

const LEGAL: ReadonlyArray<[Phase, Phase]> = [
  ["PLANNED", "AUTHORIZED"],
  ["PLANNED", "AWAITING_APPROVAL"],
  ["PLANNED", "REJECTED"],
  ["AUTHORIZED", "DISPATCHED"],
  ["DISPATCHED", "CONFIRMED"],
  ["DISPATCHED", "UNKNOWN"],
  ["DISPATCHED", "RETRY_SCHEDULED"],
  ["DISPATCHED", "AWAITING_APPROVAL"],
  ["DISPATCHED", "FAILED"],
  ["UNKNOWN", "RECONCILED"],
  ["UNKNOWN", "AUTHORIZED"],
  ["UNKNOWN", "AWAITING_APPROVAL"],
  ["UNKNOWN", "FAILED"],
  ["RECONCILED", "AUTHORIZED"],
  ["RECONCILED", "AWAITING_APPROVAL"],
  ["RECONCILED", "REJECTED"],
  ["RECONCILED", "FAILED"],
  ["RETRY_SCHEDULED", "AUTHORIZED"],
  ["RETRY_SCHEDULED", "AWAITING_APPROVAL"],
  ["RETRY_SCHEDULED", "REJECTED"],
  ["RETRY_SCHEDULED", "UNKNOWN"],
  ["RETRY_SCHEDULED", "FAILED"],
  ["AWAITING_APPROVAL", "PLANNED"],
  ["AWAITING_APPROVAL", "RETRY_SCHEDULED"],
  ["AWAITING_APPROVAL", "REJECTED"],
  ["AWAITING_APPROVAL", "EXPIRED"],
];

const isListed = (from: Phase, to: Phase): boolean => LEGAL.some(([f, t]) => f === from && t === to);
const ALL_PAIRS = PHASES.flatMap((from) => PHASES.map((to) => ({ from, to, legal: isListed(from, to) })));

describe("TRANSITIONS", () => {
  test("lists exactly the legal moves of the design", () => {
    const fromTable = PHASES.flatMap((from) => TRANSITIONS[from].map((to): [Phase, Phase] => [from, to]));
    expect(new Set(fromTable.map((p) => p.join(">")))).toEqual(new Set(LEGAL.map((p) => p.join(">"))));
    expect(fromTable).toHaveLength(LEGAL.length);
  });

  test.each(ALL_PAIRS)("$from -> $to is legal: $legal", ({ from, to, legal }) => {
    if (legal) {
      expect(() => assertTransition(from, to)).not.toThrow();
      return;
    }
    let thrown: unknown;
    try {
      assertTransition(from, to);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(IllegalTransitionError);
    const error = thrown as IllegalTransitionError;
    expect(error.name).toBe("IllegalTransitionError");
    expect(error.from).toBe(from);
    expect(error.to).toBe(to);
    expect(error.message).toContain(from);
    expect(error.message).toContain(to);
  });
});

describe("isTerminal", () => {
  test.each(
    PHASES.map((phase) => ({ phase, terminal: ["CONFIRMED", "FAILED", "REJECTED", "EXPIRED"].includes(phase) })),
  )("$phase terminal: $terminal", ({ phase, terminal }) => {
    expect(isTerminal(phase)).toBe(terminal);
    // A terminal phase is one with no way out, and only those.
    expect(TRANSITIONS[phase].length === 0).toBe(terminal);
  });

  test("EXPIRED is reached only from AWAITING_APPROVAL, and nothing leaves it", () => {
    expect(PHASES.filter((from) => TRANSITIONS[from].includes("EXPIRED"))).toEqual(["AWAITING_APPROVAL"]);
    expect(isTerminal("EXPIRED")).toBe(true);
    expect(() => assertTransition("EXPIRED", "AWAITING_APPROVAL")).toThrow(/EXPIRED is terminal/);
  });

  test("RECONCILED is not terminal, because 'effect did not happen' may lead to a retry", () => {
    expect(isTerminal("RECONCILED")).toBe(false);
    expect(TRANSITIONS.RECONCILED).toContain("AUTHORIZED");
  });
});
