"use client";
// The buttons at the bottom of an admin dialog: Cancel, and the action that says what it will do.
import type { ReactNode } from "react";
import { buttonClass, type ButtonTone } from "@/components/ui/button-styles";
import { DialogClose } from "@/components/ui/dialog";

export function DialogFooter({
  pending,
  submitLabel,
  pendingLabel,
  tone = "primary",
}: {
  pending: boolean;
  submitLabel: ReactNode;
  pendingLabel: ReactNode;
  tone?: ButtonTone;
}) {
  return (
    <div className="mt-5 flex justify-end gap-2">
      <DialogClose className={buttonClass("secondary")}>Cancel</DialogClose>
      <button type="submit" disabled={pending} aria-disabled={pending} className={buttonClass(tone)}>
        {pending ? pendingLabel : submitLabel}
      </button>
    </div>
  );
}
