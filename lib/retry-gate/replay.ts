// Which operations a person may replay (a new operation with edited arguments), and which replays wait for a second
// person: one rule for the ledger (which enforces it) and the console (which offers the button).
import { assertNever } from "./exhaustive";
import type { EffectClass, EffectEvidence, Phase } from "./types";

/**
 * Only an operation that is over: confirmed, failed, rejected, expired, or reconciled as applied (the effect exists and
 * is never repeated). A live operation may still run, so replaying it could do the effect twice; a RECONCILED "not
 * applied" one may still be retried by the gate, so a person rejects it first.
 */
export function canReplay(phase: Phase, evidence: EffectEvidence): boolean {
  switch (phase) {
    case "CONFIRMED":
    case "FAILED":
    case "REJECTED":
    case "EXPIRED":
      return true;
    case "RECONCILED":
      return evidence === "applied";
    case "PLANNED":
    case "AUTHORIZED":
    case "DISPATCHED":
    case "UNKNOWN":
    case "RETRY_SCHEDULED":
    case "AWAITING_APPROVAL":
      return false;
    default:
      return assertNever(phase, "phase");
  }
}

/**
 * Replaying a NON_RETRYABLE call is the human gate (docs/authority.md#the-human-gate): the replay waits for a second
 * person's approval before its first attempt, whatever its contract's approval policy says.
 */
export function replayNeedsApproval(effect: EffectClass): boolean {
  switch (effect) {
    case "NON_RETRYABLE":
      return true;
    case "PURE":
    case "IDEMPOTENT":
    case "REPLAYABLE":
    case "UNKNOWN":
      return false;
    default:
      return assertNever(effect, "effect class");
  }
}
