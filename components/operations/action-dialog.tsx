"use client";
// A confirmation dialog for an action on an operation: says what will happen, asks for the reason, and reports a
// refusal in place.
import { useId, type FormEvent, type ReactNode } from "react";
import { Dialog, DialogDescription, DialogPanel, DialogTitle } from "@/components/ui/dialog";
import { FieldErrors } from "@/components/ui/form-controls";

export type DialogTone = "primary" | "danger";

export interface ActionDialogProps {
  open: boolean;
  title: string;
  /** What will happen, in plain words, including whether it can be undone. */
  consequence: ReactNode;
  confirmLabel: string;
  tone: DialogTone;
  pending: boolean;
  /** A refusal from the server, shown inside the dialog. */
  error: string | null;
  fieldErrors?: Record<string, string[]>;
  reasonPlaceholder: string;
  onCancel: () => void;
  onConfirm: (form: FormData) => void;
  /** Fields asked before the reason (for example the reconciliation outcome). */
  children?: ReactNode;
}

export function ActionDialog(props: ActionDialogProps) {
  const { open, pending } = props;
  const reasonId = useId();
  const reasonErrorId = useId();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (pending) return;
    props.onConfirm(new FormData(event.currentTarget));
  }

  const reasonErrors = props.fieldErrors?.reason;
  const confirmTone =
    props.tone === "danger"
      ? "bg-phase-failed text-white hover:bg-phase-failed/85"
      : "bg-ink text-surface hover:bg-ink/85";

  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        if (!next) props.onCancel();
      }}
    >
      {/* Escape while the request is out would hide its answer; otherwise Escape is the same as Cancel. */}
      <DialogPanel
        busy={pending}
        closeOnOutsideClick={false}
        className={
          "max-h-[calc(100dvh-2em-6px)] w-[min(36rem,calc(100vw-2rem))] rounded-xl border border-line-strong " +
          "bg-surface p-0 text-ink shadow-2xl"
        }
      >
        <form onSubmit={submit} className="flex flex-col gap-4 p-5" noValidate={false}>
          <DialogTitle className="text-base font-semibold">{props.title}</DialogTitle>
          <DialogDescription asChild>
            <div className="leading-relaxed text-ink-muted">{props.consequence}</div>
          </DialogDescription>
          {props.children}
          <div>
            <label htmlFor={reasonId} className="mb-1 block font-medium">
              Reason <span className="font-normal text-ink-subtle">(required, recorded with your name)</span>
            </label>
            <textarea
              id={reasonId}
              name="reason"
              required
              rows={3}
              maxLength={2000}
              placeholder={props.reasonPlaceholder}
              aria-invalid={reasonErrors ? true : undefined}
              aria-describedby={reasonErrors ? reasonErrorId : undefined}
              data-autofocus={props.children ? undefined : true}
              className="w-full rounded-md border border-line-strong bg-surface px-2.5 py-2 text-[13px] shadow-xs"
            />
            <FieldErrors id={reasonErrorId} errors={reasonErrors} className="mt-1" />
          </div>
          {props.error ? (
            <p
              role="alert"
              className="rounded-md border border-phase-failed/40 bg-phase-failed-soft px-3 py-2 text-phase-failed-ink"
            >
              {props.error}
            </p>
          ) : null}
          <div className="flex justify-end gap-2 pt-1">
            <button
              type="button"
              onClick={props.onCancel}
              disabled={pending}
              className="rounded-md px-3 py-1.5 font-medium ring-1 ring-line-strong hover:bg-surface-muted disabled:opacity-60"
            >
              Cancel
            </button>
            <button
              type="submit"
              disabled={pending}
              className={`rounded-md px-3 py-1.5 font-medium disabled:opacity-60 ${confirmTone}`}
            >
              {pending ? "Recording…" : props.confirmLabel}
            </button>
          </div>
        </form>
      </DialogPanel>
    </Dialog>
  );
}
