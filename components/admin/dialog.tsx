"use client";
// Accessible modal dialogs for admin actions, on Radix UI's Dialog: focus trap, Escape to close, focus returned to the trigger.
import * as RadixDialog from "@radix-ui/react-dialog";
import type { ReactNode } from "react";

export const Dialog = RadixDialog.Root;
export const DialogTrigger = RadixDialog.Trigger;
export const DialogClose = RadixDialog.Close;

export interface DialogContentProps {
  title: string;
  /** What will happen, in one or two sentences: read by screen readers when the dialog opens. */
  description: ReactNode;
  children: ReactNode;
  /** Wider dialogs for content such as a new API key. */
  wide?: boolean;
}

export function DialogContent({ title, description, children, wide = false }: DialogContentProps) {
  return (
    <RadixDialog.Portal>
      <RadixDialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
      <RadixDialog.Content
        className={`fixed top-1/2 left-1/2 z-50 max-h-[90dvh] w-[calc(100vw-2rem)] -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-lg bg-surface p-5 text-sm shadow-xl ring-1 ring-line-strong focus:outline-none ${
          wide ? "max-w-xl" : "max-w-md"
        }`}
      >
        <div className="flex items-start justify-between gap-4">
          <RadixDialog.Title className="text-base font-semibold text-ink">{title}</RadixDialog.Title>
          <RadixDialog.Close
            aria-label="Close"
            className="-mt-1 -mr-1 rounded-md px-1.5 py-0.5 text-lg leading-none text-ink-subtle hover:bg-surface-sunken hover:text-ink"
          >
            <span aria-hidden="true">×</span>
          </RadixDialog.Close>
        </div>
        <RadixDialog.Description asChild>
          <div className="mt-1.5 leading-relaxed text-ink-muted">{description}</div>
        </RadixDialog.Description>
        <div className="mt-4">{children}</div>
      </RadixDialog.Content>
    </RadixDialog.Portal>
  );
}
