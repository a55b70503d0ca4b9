"use client";
// "Reject": ends the operation for good; the agent receives the person's reason.
import { formText } from "@/components/ui/form-text";
import { ActionDialog } from "./action-dialog";
import { ChangedMeanwhile } from "./changed-meanwhile";
import type { DecisionDialogProps } from "./decision-dialog-props";

/** Confirms with the person's reason. */
export function RejectDialog({ snapshot, changedMeanwhile, onConfirm, ...shared }: DecisionDialogProps<string>) {
  return (
    <ActionDialog
      open
      {...shared}
      title={`Reject this ${snapshot.tool} operation?`}
      tone="danger"
      confirmLabel="Confirm rejection"
      reasonPlaceholder="e.g. duplicate of an order that already shipped"
      onConfirm={(form) => onConfirm(formText(form, "reason").trim())}
      consequence={
        <>
          <p>
            The operation ends as <strong className="text-ink">Rejected</strong>: no further attempt will be dispatched,
            and the agent receives your reason. This cannot be undone.
          </p>
          <ChangedMeanwhile show={changedMeanwhile} />
        </>
      }
    />
  );
}
