// What the console's action dialogs say when the ledger refuses a person's decision, by the refusal's stable code. The
// ledger's own sentences are written for API clients ("the same principal", an operation id); these say what happened
// to the person at the keyboard and what to do next. Codes without a console sentence keep the ledger's.
import type { LedgerErrorCode } from "@/lib/ledger/errors";
import { assertNever } from "@/lib/retry-gate/exhaustive";

/** Refusals that mean the operation left the phase the person decided on: someone else decided first. */
const DECIDED_FIRST = [
  "not_awaiting_approval",
  "not_rejectable",
  "not_unknown",
  "write_conflict",
] as const satisfies readonly LedgerErrorCode[];

/** What a person hears instead of any DECIDED_FIRST refusal (as a write_conflict, so the dialog closes). */
export const DECIDED_FIRST_BY_ANOTHER =
  "Someone else acted on this operation first — the page has been refreshed to show what they did. Nothing was " +
  "changed by you; read the timeline and decide again.";

export function decidedFirstByAnother(code: string): boolean {
  return (DECIDED_FIRST as readonly string[]).includes(code);
}

/** The refusals a person's approve, reject or reconcile can meet that deserve the console's own words. */
const PERSON_REFUSALS = [
  "four_eyes",
  "already_approved",
  "approval_expired",
  "person_required",
] as const satisfies readonly LedgerErrorCode[];
type PersonRefusal = (typeof PERSON_REFUSALS)[number];

function isPersonRefusal(code: string): code is PersonRefusal {
  return (PERSON_REFUSALS as readonly string[]).includes(code);
}

function sentence(code: PersonRefusal): string {
  switch (code) {
    case "four_eyes":
      return (
        "You are tied to this operation: it runs under an API key bound to you, or you asked for this approval " +
        "(through such a key, or by replaying it), so another person must approve it: the four-eyes rule. Nothing " +
        "was changed."
      );
    case "already_approved":
      return (
        "You have already approved this operation (yourself or through an API key bound to you). It needs " +
        "approvals from other people before the attempt is granted; nothing more was recorded."
      );
    case "approval_expired":
      return (
        "Too late: the approval request expired before your decision arrived, so nothing was approved. The " +
        "operation has ended as Expired."
      );
    case "person_required":
      return (
        "Only a person with the operator role can approve. Your account no longer has it, so nothing was changed; " +
        "reload the page to see your current role."
      );
    default:
      return assertNever(code, "refusal");
  }
}

/** The console's sentence for a refusal, or the ledger's message when the code has none. */
export function refusalText(code: string, ledgerMessage: string): string {
  return isPersonRefusal(code) ? sentence(code) : ledgerMessage;
}

/**
 * Refusals that mean the operation moved on while the dialog was open (someone acted first, or the request ran out):
 * the dialog closes and the page, refreshed, shows what is true now.
 */
export function operationMovedOn(code: string): boolean {
  return code === "write_conflict" || code === "approval_expired";
}
