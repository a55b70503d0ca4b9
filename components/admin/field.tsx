"use client";
// A labelled form field with its hint and its validation messages tied to the input for screen readers.
import { useId, type InputHTMLAttributes, type ReactNode } from "react";

export interface FieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "id" | "className"> {
  name: string;
  label: string;
  hint?: ReactNode;
  /** Messages from the server's validation for this field. */
  errors?: string[] | undefined;
}

export function Field({ name, label, hint, errors, ...input }: FieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const invalid = Boolean(errors && errors.length > 0);
  const describedBy = [hint ? hintId : null, invalid ? errorId : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="font-medium text-ink">
        {label}
      </label>
      <input
        id={id}
        name={name}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
        className={
          "rounded-md bg-surface px-2.5 py-1.5 text-ink ring-1 ring-inset placeholder:text-ink-subtle " +
          `focus-visible:outline-2 focus-visible:outline-offset-0 ${invalid ? "ring-phase-failed" : "ring-line-strong"}`
        }
        {...input}
      />
      {hint ? (
        <p id={hintId} className="text-xs text-ink-subtle">
          {hint}
        </p>
      ) : null}
      {invalid ? <FieldErrors id={errorId} errors={errors ?? []} /> : null}
    </div>
  );
}

export function FieldErrors({ id, errors }: { id?: string; errors: string[] }) {
  if (errors.length === 0) return null;
  return (
    <p id={id} className="text-xs font-medium text-phase-failed-ink">
      {errors.join(" ")}
    </p>
  );
}

/** A multi-line reason for the audit trail; required for destructive actions. */
export function ReasonField({
  errors,
  required = true,
  hint,
}: {
  errors?: string[] | undefined;
  required?: boolean;
  hint?: ReactNode;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const invalid = Boolean(errors && errors.length > 0);
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="font-medium text-ink">
        Reason{required ? "" : " (optional)"}
      </label>
      <textarea
        id={id}
        name="reason"
        rows={2}
        required={required}
        maxLength={500}
        aria-invalid={invalid || undefined}
        aria-describedby={[hintId, invalid ? errorId : null].filter(Boolean).join(" ")}
        className={`rounded-md bg-surface px-2.5 py-1.5 text-ink ring-1 ring-inset focus-visible:outline-2 focus-visible:outline-offset-0 ${
          invalid ? "ring-phase-failed" : "ring-line-strong"
        }`}
      />
      <p id={hintId} className="text-xs text-ink-subtle">
        {hint ?? "Recorded with your name in the audit trail."}
      </p>
      {invalid ? <FieldErrors id={errorId} errors={errors ?? []} /> : null}
    </div>
  );
}
