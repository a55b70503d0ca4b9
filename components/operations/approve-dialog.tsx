"use client";
// "Approve retry": grants exactly one more attempt, or counts the person's approval toward the contract's quorum.
import { formText } from "@/components/ui/form-text";
import { ActionDialog } from "./action-dialog";
import { quorumShortAfterOne } from "./action-effects";
import { ChangedMeanwhile } from "./changed-meanwhile";
import type { DecisionDialogProps } from "./decision-dialog-props";

/** Confirms with the person's reason. */
export function ApproveDialog({ snapshot, changedMeanwhile, onConfirm, ...shared }: DecisionDialogProps<string>) {
  return (
    <ActionDialog
      open
      {...shared}
      title={`Approve attempt ${snapshot.attempt + 1} of ${snapshot.tool}?`}
      tone="primary"
      confirmLabel="Confirm approval"
      reasonPlaceholder="e.g. checked with the customer: the first charge was declined, charge once more"
      onConfirm={(form) => onConfirm(formText(form, "reason").trim())}
      consequence={
        <>
          {quorumShortAfterOne(snapshot.approvals) ? (
            <p>
              This contract needs <strong className="text-ink">{snapshot.approvals.needed}</strong> people to approve;
              yours will be {snapshot.approvals.given + 1} of {snapshot.approvals.needed}. Attempt{" "}
              {snapshot.attempt + 1} is granted, once and with the same idempotency key, when the last of them approves
              before the request expires.
            </p>
          ) : (
            <p>
              This grants exactly <strong className="text-ink">one</strong> more attempt: attempt {snapshot.attempt + 1}{" "}
              may be dispatched once, with the same idempotency key. If it fails again, the gate stops and asks a person
              again.
              {snapshot.approvals.needed > 1
                ? ` Yours is the last of the ${snapshot.approvals.needed} approvals it needs.`
                : null}
            </p>
          )}
          <ChangedMeanwhile show={changedMeanwhile} />
        </>
      }
    />
  );
}
