// What a bulk action is asked about: the rows picked, or every operation matching the page's filter, and the words
// the console uses for each action.
import type { BulkPreviewInput } from "@/lib/console/actions/bulk-actions";
import { ageToMs, type LedgerFilter } from "@/lib/console/ledger-search";
import type { BulkActionName } from "@/lib/ledger/bulk/request";
import { assertNever } from "@/lib/retry-gate/exhaustive";

export type BulkTarget = Pick<BulkPreviewInput, "ids" | "filter">;

/** The ledger's filter bar as a bulk filter: "older than" becomes a creation time, as the ledger's list reads it. */
export function filterTarget(filter: LedgerFilter, now: number): BulkTarget {
  const { age, ...fields } = filter;
  const olderThan = age ? ageToMs(age) : null;
  return {
    filter: {
      ...fields,
      ...(olderThan !== null ? { createdBefore: new Date(now - olderThan).toISOString() } : {}),
    },
  };
}

export function actionLabel(action: BulkActionName): string {
  switch (action) {
    case "lookup_reconcile":
      return "Look up and reconcile";
    case "reconcile":
      return "Reconcile with evidence";
    case "approve":
      return "Approve";
    case "reject":
      return "Reject";
    default:
      return assertNever(action, "bulk action");
  }
}

/** One sentence on what the action does to each operation, for the preview dialog. */
export function actionExplanation(action: BulkActionName): string {
  switch (action) {
    case "lookup_reconcile":
      return (
        "Each operation's provider is asked whether the effect happened; what the answer proves is reconciled, " +
        "what it cannot prove stays UNKNOWN and is reported."
      );
    case "reconcile":
      return "Each operation is reconciled with the outcome and the one piece of evidence you give, as if you reconciled each one.";
    case "approve":
      return "Each operation gets your approval (four-eyes per operation): the last approval its quorum needs grants exactly one attempt.";
    case "reject":
      return "Each operation is ended; its agent is told your reason.";
    default:
      return assertNever(action, "bulk action");
  }
}
