// Form and button looks shared by the contract, dependency, metrics and audit pages, as class strings and two small field parts.
import type { ReactNode } from "react";
import { assertNever } from "@/lib/retry-gate/exhaustive";

export type ButtonTone = "primary" | "secondary" | "danger" | "quiet";

const BUTTON_BASE =
  "inline-flex items-center justify-center gap-1.5 rounded-md font-medium whitespace-nowrap disabled:cursor-not-allowed disabled:opacity-60";

export function buttonClass(tone: ButtonTone, size: "md" | "sm" = "md"): string {
  const pad = size === "sm" ? "px-2 py-1 text-xs" : "px-3 py-1.5";
  switch (tone) {
    case "primary":
      return `${BUTTON_BASE} ${pad} bg-ink text-surface hover:bg-ink/85`;
    case "secondary":
      return `${BUTTON_BASE} ${pad} bg-surface text-ink ring-1 ring-line-strong ring-inset hover:bg-surface-sunken`;
    case "danger":
      return `${BUTTON_BASE} ${pad} bg-phase-failed text-white hover:bg-phase-failed/85`;
    case "quiet":
      return `${BUTTON_BASE} ${pad} text-ink-muted ring-1 ring-line ring-inset hover:bg-surface-sunken hover:text-ink`;
    default:
      return assertNever(tone, "button tone");
  }
}

/** Text inputs, selects and text areas; the ring turns red when the field has errors. */
export function inputClass(invalid = false, extra = ""): string {
  return `rounded-md bg-surface px-2.5 py-1.5 text-ink ring-1 ring-inset placeholder:text-ink-subtle focus-visible:outline-2 focus-visible:outline-offset-0 ${
    invalid ? "ring-phase-failed" : "ring-line-strong"
  } ${extra}`;
}

export const linkClass =
  "font-medium text-ink underline decoration-line-strong underline-offset-4 hover:decoration-ink";

/** The validation messages of one field, tied to its input by id for screen readers. */
export function FieldErrors({ id, errors }: { id: string; errors: readonly string[] | undefined }) {
  if (!errors || errors.length === 0) return null;
  return (
    <p id={id} className="text-xs font-medium text-phase-failed-ink">
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
