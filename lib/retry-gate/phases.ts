// The phase machine of an operation: which phase may follow which, as one explicit table.
import { assertNever } from "./exhaustive";
import { type Phase } from "./types";

/** Where every operation starts: planned, nothing sent yet (the machine's initial state). */
export const INITIAL_PHASE: Phase = "PLANNED";

/**
 * Every legal move. Kept as data rather than scattered `if`s so the ledger, the console and the
 * tests all read the same table, and a new phase fails the build until its row is written.
 */
export const TRANSITIONS: Record<Phase, readonly Phase[]> = {
  PLANNED: ["AUTHORIZED", "AWAITING_APPROVAL", "REJECTED"],
  AUTHORIZED: ["DISPATCHED"],
  DISPATCHED: ["CONFIRMED", "UNKNOWN", "RETRY_SCHEDULED", "AWAITING_APPROVAL", "FAILED"],
  // AUTHORIZED, AWAITING_APPROVAL and FAILED are only for PURE (no effect to reconcile); the gate enforces that.
  UNKNOWN: ["RECONCILED", "AUTHORIZED", "AWAITING_APPROVAL", "FAILED"],
  // RECONCILED is not terminal: "the effect did not happen" may lead to another attempt, or a person ends it.
  RECONCILED: ["AUTHORIZED", "AWAITING_APPROVAL", "REJECTED", "FAILED"],
  // UNKNOWN when the provider's key retention ran out while the retry waited: the earlier attempt must be looked up.
  // FAILED (here, from UNKNOWN and from RECONCILED) when the run's allowance refuses the retry as it is about to leave
  // (docs/run-allowance.md).
  RETRY_SCHEDULED: ["AUTHORIZED", "AWAITING_APPROVAL", "REJECTED", "UNKNOWN", "FAILED"],
  // PLANNED after approving a first attempt, RETRY_SCHEDULED after approving a retry; EXPIRED when nobody decided in
  // time (the system's sweep), so a request is never approved by default nor left waiting forever.
  AWAITING_APPROVAL: ["PLANNED", "RETRY_SCHEDULED", "REJECTED", "EXPIRED"],
  CONFIRMED: [],
  FAILED: [],
  REJECTED: [],
  // Terminal like REJECTED: a replay is a new operation, not a way out of this one.
  EXPIRED: [],
};

/**
 * A move the table does not list, or an event (lib/retry-gate/phase-events.ts) sent to a phase it does not apply to:
 * `only` names the phases the event applies to.
 */
export class IllegalTransitionError extends Error {
  readonly from: Phase;
  readonly to: Phase;

  constructor(from: Phase, to: Phase, only?: { event: string; from: readonly Phase[] }) {
    const allowed = TRANSITIONS[from];
    super(
      `An operation in phase ${from} cannot move to ${to}; ` +
        (only !== undefined
          ? `${only.event} applies only to an operation in ${only.from.join(" or ")}.`
          : allowed.length === 0
            ? `${from} is terminal.`
            : `from ${from} it may only move to ${allowed.join(", ")}.`),
    );
    this.name = "IllegalTransitionError";
    this.from = from;
    this.to = to;
  }
}

export function isLegalTransition(from: Phase, to: Phase): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Throws rather than returning a boolean so a caller cannot forget to look at the answer. */
export function assertTransition(from: Phase, to: Phase): void {
  if (!isLegalTransition(from, to)) throw new IllegalTransitionError(from, to);
}

export function isTerminal(phase: Phase): boolean {
  switch (phase) {
    case "CONFIRMED":
    case "FAILED":
    case "REJECTED":
    case "EXPIRED":
      return true;
    case "PLANNED":
    case "AUTHORIZED":
    case "DISPATCHED":
    case "UNKNOWN":
    case "RECONCILED":
    case "RETRY_SCHEDULED":
    case "AWAITING_APPROVAL":
      return false;
    default:
      return assertNever(phase, "phase");
  }
}
