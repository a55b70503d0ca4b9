// An action on an operation sent to the ledger, and its refusal in the console's words.
import type { ActionResult } from "@/lib/console/actions/console-action";
import {
  approveOperationAction,
  reconcileOperationAction,
  rejectOperationAction,
  type ActionOutcome,
} from "@/lib/console/actions/operation-actions";
import { operationMovedOn, refusalText } from "@/lib/console/refusals";
import { assertNever } from "@/lib/retry-gate/exhaustive";
import type { ActionRequest } from "./action-effects";

/** A refusal from the ledger, in the console's words for the codes that have them. */
export class ActionRefused extends Error {
  override name = "ActionRefused";
  constructor(
    readonly code: string,
    message: string,
    readonly fieldErrors: Record<string, string[]> | undefined,
  ) {
    super(refusalText(code, message));
  }
}

/** The action's data, or its refusal thrown as an ActionRefused. */
export function unwrap<T>(result: ActionResult<T>): T {
  if (!result.ok) throw new ActionRefused(result.code, result.message, result.errors);
  return result.data;
}

/** Someone acted first, or the request ran out: the dialog closes and the page shows what is true now. */
export function isConflict(error: unknown): boolean {
  return error instanceof ActionRefused && operationMovedOn(error.code);
}

export async function sendAction(id: string, v: ActionRequest): Promise<ActionOutcome> {
  switch (v.kind) {
    case "approve":
      return unwrap(await approveOperationAction({ id, seen: v.seen, reason: v.reason }));
    case "reject":
      return unwrap(await rejectOperationAction({ id, seen: v.seen, reason: v.reason }));
    case "reconcile":
      return unwrap(
        await reconcileOperationAction({
          id,
          seen: v.seen,
          reason: v.reason,
          outcome: v.outcome,
          ...(v.providerId ? { providerId: v.providerId } : {}),
          ...(v.evidence ? { evidence: v.evidence } : {}),
          approveRetry: v.approveRetry,
        }),
      );
    default:
      return assertNever(v, "action");
  }
}
