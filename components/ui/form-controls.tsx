// Form looks shared by every console form: input and link classes, field errors and hints, and notices.
import type { ReactNode } from "react";

/** Text inputs, selects and text areas; the ring turns red when the field has errors. */
export function inputClass(invalid = false, extra = ""): string {
  return (
    "rounded-md bg-surface px-2.5 py-1.5 text-ink ring-1 ring-inset placeholder:text-ink-subtle focus-visible:outline-2 " +
    `focus-visible:outline-offset-0 ${invalid ? "ring-phase-failed" : "ring-line-strong"} ${extra}`
  );
}

export const linkClass =
  "font-medium text-ink underline decoration-line-strong underline-offset-4 hover:decoration-ink";

/** The validation messages of one field, tied to its input by id for screen readers. */
export function FieldErrors({
  id,
  errors,
  className = "",
}: {
  id: string;
  errors: readonly string[] | undefined;
  /** Spacing from the field above, where the layout does not give it. */
  className?: string;
}) {
  if (!errors || errors.length === 0) return null;
  return (
    <p id={id} className={`text-xs font-medium text-phase-failed-ink ${className}`}>
      {errors.join(" ")}
    </p>
  );
}

/** One line of help under a field, in the operator's words. */
export function FieldHint({ id, children }: { id: string; children: ReactNode }) {
  return (
    <p id={id} className="text-xs leading-snug text-ink-subtle">
      {children}
    </p>
  );
}

/** A boxed message: a refusal, a conflict, a success. Alerts are announced; notes are not. */
export function Notice({
  tone,
  title,
  children,
  alert = false,
}: {
  tone: "error" | "warning" | "success" | "info";
  title?: string;
  children?: ReactNode;
  alert?: boolean;
}) {
  const colours =
    tone === "error"
      ? "bg-phase-failed-soft text-phase-failed-ink ring-phase-failed/30"
      : tone === "warning"
        ? "bg-phase-unknown-soft text-phase-unknown-ink ring-phase-unknown/40"
        : tone === "success"
          ? "bg-phase-confirmed-soft text-phase-confirmed-ink ring-phase-confirmed/30"
          : "bg-surface-muted text-ink-muted ring-line-strong";
  return (
    <div role={alert ? "alert" : undefined} className={`rounded-md px-3 py-2 ring-1 ring-inset ${colours}`}>
      {title ? <p className="font-medium">{title}</p> : null}
      {children ? <div className={title ? "mt-0.5" : ""}>{children}</div> : null}
    </div>
  );
}
