// What enforcing a contract would have done with a call that observe mode let through, in the console's words.
import type { WouldHave } from "@/lib/ledger/reads/operation-view";

/** A piece of the sentence after "enforcing would have": words, or the earlier operation (a link in the console). */
export type WouldHavePart = { text: string } | { operationId: string };

export interface WouldHaveText {
  parts: WouldHavePart[];
  /** The earlier operation, when the sentence does not name it already. */
  earlierOperation: string | null;
  /** The gate's own reason as a sentence, when the sentence above is not that reason already. */
  reason: string | null;
}

/** The sentence for the codes people meet most; any other code is told by the reason recorded with it. */
function words(wouldHave: WouldHave): WouldHavePart[] | null {
  switch (wouldHave.code) {
    case "approval_required":
      return [{ text: "held it for a person's approval" }];
    case "breaker_open":
      return [{ text: "failed it fast: the circuit was open" }];
    case "reconcile_required":
      return [{ text: "refused it: the outcome of an earlier call is unknown" }];
    case "idempotency_key_reused":
      return [{ text: "refused it: the key belongs to a call with other arguments" }];
    case "replayed":
      return wouldHave.operationId
        ? [
            { text: "answered with the kept result of operation " },
            { operationId: wouldHave.operationId },
            { text: " without calling the tool" },
          ]
        : [{ text: "answered with the kept result of an earlier operation without calling the tool" }];
    default:
      return null;
  }
}

export function wouldHaveText(wouldHave: WouldHave): WouldHaveText {
  const known = words(wouldHave);
  const parts = known ?? [{ text: wouldHave.reason }];
  const named = parts.some((part) => "operationId" in part);
  return {
    parts,
    earlierOperation: named ? null : (wouldHave.operationId ?? null),
    // Some reasons are clauses ("... so the call would have been answered with its kept result, not sent").
    reason: known ? wouldHave.reason.replace(/(?<![.!?])$/, ".") : null,
  };
}
