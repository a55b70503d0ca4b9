"use client";
// The console's one modal dialog, on Radix UI's Dialog: focus trap, Escape to close, the page behind inert, focus
// returned.
import * as RadixDialog from "@radix-ui/react-dialog";
import { useRef, type ReactNode } from "react";

export const Dialog = RadixDialog.Root;
export const DialogTrigger = RadixDialog.Trigger;
export const DialogClose = RadixDialog.Close;
export const DialogTitle = RadixDialog.Title;
export const DialogDescription = RadixDialog.Description;

export interface DialogPanelProps {
  /** The box's own look: width, height limit, corners, padding. */
  className: string;
  children: ReactNode;
  /** While a request is out, Escape and clicks outside do nothing: closing would hide its answer. */
  busy?: boolean;
  /** A dialog that asks for a reason stays open on a stray click outside, which would throw the typed reason away. */
  closeOnOutsideClick?: boolean;
}

/**
 * The overlay and the box, where every dialog's opening, focus and closing is decided. On opening, the field marked
 * `data-autofocus` takes the keyboard (Radix would pick the first button); on closing, focus goes back to what had it
 * when the dialog opened, also for dialogs opened by code rather than by a trigger.
 */
export function DialogPanel({ className, children, busy = false, closeOnOutsideClick = true }: DialogPanelProps) {
  const opener = useRef<HTMLElement | null>(null);
  return (
    <RadixDialog.Portal>
      <RadixDialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
      <RadixDialog.Content
        className={`fixed top-1/2 left-1/2 z-50 -translate-x-1/2 -translate-y-1/2 overflow-y-auto focus:outline-none ${className}`}
        onOpenAutoFocus={(event) => {
          const active = document.activeElement;
          opener.current = active instanceof HTMLElement && active !== document.body ? active : null;
          const marked = (event.currentTarget as HTMLElement | null)?.querySelector<HTMLElement>("[data-autofocus]");
          if (marked) {
            event.preventDefault();
            marked.focus();
          }
        }}
        onCloseAutoFocus={(event) => {
          if (opener.current?.isConnected) {
            event.preventDefault();
            opener.current.focus();
          }
        }}
        onEscapeKeyDown={(event) => {
          if (busy) event.preventDefault();
        }}
        onInteractOutside={(event) => {
          if (busy || !closeOnOutsideClick) event.preventDefault();
        }}
      >
        {children}
      </RadixDialog.Content>
    </RadixDialog.Portal>
  );
}

export interface DialogContentProps extends Omit<DialogPanelProps, "className"> {
  title: string;
  /** What will happen, in one or two sentences: read by screen readers when the dialog opens. */
  description: ReactNode;
  /** Wider dialogs for content such as a new API key. */
  wide?: boolean;
  /** The × in the corner; the confirmations that ask for a reason have none and close by Cancel or Escape. */
  closeButton?: boolean;
}

/** The usual dialog: a title, what will happen, then the form. */
export function DialogContent({
  title,
  description,
  children,
  wide = false,
  closeButton = true,
  ...panel
}: DialogContentProps) {
  return (
    <DialogPanel
      {...panel}
      className={`max-h-[90dvh] w-[calc(100vw-2rem)] rounded-lg bg-surface p-5 text-sm shadow-xl ring-1 ring-line-strong ${
        wide ? "max-w-xl" : "max-w-md"
      }`}
    >
      <div className="flex items-start justify-between gap-4">
        <DialogTitle className="text-base font-semibold text-ink">{title}</DialogTitle>
        {closeButton ? (
          <DialogClose
            aria-label="Close"
            className="-mt-1 -mr-1 rounded-md px-1.5 py-0.5 text-lg leading-none text-ink-subtle hover:bg-surface-sunken hover:text-ink"
          >
            <span aria-hidden="true">×</span>
          </DialogClose>
        ) : null}
      </div>
      <DialogDescription asChild>
        <div className="mt-1.5 leading-relaxed text-ink-muted">{description}</div>
      </DialogDescription>
      <div className="mt-4">{children}</div>
    </DialogPanel>
  );
}
