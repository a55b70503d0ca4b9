// Which decisions a person may take on an operation in a given state: one rule for the ledger (which enforces it) and
// the console (which offers it).
import { assertNever } from "./exhaustive";
import type { EffectEvidence, Phase } from "./types";

export type PersonAction = "approve" | "reject" | "reconcile";

export function personActionsFor(phase: Phase, evidence: EffectEvidence): PersonAction[] {
  switch (phase) {
    case "AWAITING_APPROVAL":
      return ["approve", "reject"];
    case "UNKNOWN":
      return ["reconcile"];
    case "PLANNED":
    case "RETRY_SCHEDULED":
      return ["reject"];
    // "The effect did not happen" may still be ended by a person; "it happened" is final.
    case "RECONCILED":
      return evidence === "applied" ? [] : ["reject"];
    case "AUTHORIZED":
    case "DISPATCHED":
    case "CONFIRMED":
    case "FAILED":
    case "REJECTED":
    // Nobody decided in time; a person's way on is a replay, a new operation with its own approval (not yet offered).
    case "EXPIRED":
      return [];
    default:
      return assertNever(phase, "phase");
  }
}
