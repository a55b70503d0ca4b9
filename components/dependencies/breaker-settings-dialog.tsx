"use client";
// The admin's editor of a dependency's breaker settings: threshold, cooldown and half-open probes, each field with its
// own message, a reason, and the version it edits (someone else's save in between is shown, never overwritten).
import { useId, useState, useTransition, type FormEvent } from "react";
import { FieldErrors, FieldHint, inputClass, Notice } from "@/components/ui/form-controls";
import { buttonClass } from "@/components/ui/button-styles";
import { Dialog, DialogClose, DialogContent, DialogTrigger } from "@/components/ui/dialog";
import { editBreakerSettings } from "@/lib/console/actions/dependency-actions";
import type { DependencyView } from "@/lib/ledger/dependencies/dependencies";

interface Failure {
  message: string;
  errors: Record<string, string[]>;
}

interface FieldSpec {
  name: "failureThreshold" | "cooldownSeconds" | "probes";
  /** The action's field its messages come back under. */
  errorKey: "failureThreshold" | "cooldownMs" | "probes";
  label: string;
  hint: string;
  min: number;
  max: number;
  step: number;
  initial: (dep: DependencyView) => number;
}

const FIELDS: FieldSpec[] = [
  {
    name: "failureThreshold",
    errorKey: "failureThreshold",
    label: "Failure threshold",
    hint: "Consecutive failed or lost calls that open the breaker (1 to 1000).",
    min: 1,
    max: 1000,
    step: 1,
    initial: (dep) => dep.failureThreshold,
  },
  {
    name: "cooldownSeconds",
    errorKey: "cooldownMs",
    label: "Cooldown (seconds)",
    hint: "How long an open breaker fails calls fast before it lets a probe through (1 s to 1 h).",
    min: 1,
    max: 3600,
    step: 0.001,
    initial: (dep) => dep.cooldownMs / 1000,
  },
  {
    name: "probes",
    errorKey: "probes",
    label: "Half-open probes",
    hint: "Probe calls that must succeed in a row, one at a time, before it closes; a failed probe reopens it (1 to 100).",
    min: 1,
    max: 100,
    step: 1,
    initial: (dep) => dep.probes,
  },
];

/** A text field's value; a file input (there is none) reads as empty. */
function textFrom(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === "string" ? value : "";
}

/** A field's number as typed; an empty or malformed box is sent as NaN so the server's message names the field. */
function numberFrom(form: FormData, name: string): number {
  const raw = textFrom(form, name).trim();
  return raw === "" ? Number.NaN : Number(raw);
}

export function BreakerSettingsButton({
  dependency,
  onDone,
}: {
  dependency: DependencyView;
  onDone: (message: string) => void;
}) {
  const [open, setOpen] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [pending, startTransition] = useTransition();
  const id = useId();

  function openChange(next: boolean) {
    if (next) setFailure(null);
    setOpen(next);
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const seconds = numberFrom(form, "cooldownSeconds");
    const input = {
      name: dependency.name,
      failureThreshold: numberFrom(form, "failureThreshold"),
      cooldownMs: Number.isFinite(seconds) ? Math.round(seconds * 1000) : Number.NaN,
      probes: numberFrom(form, "probes"),
      reason: textFrom(form, "reason"),
      expectedVersion: dependency.settingsVersion,
    };
    setFailure(null);
    startTransition(async () => {
      let result: Awaited<ReturnType<typeof editBreakerSettings>>;
      try {
        result = await editBreakerSettings(input);
      } catch {
        setFailure({
          message:
            "The console server could not be reached, so this may not have been saved. Reload the page to check.",
          errors: {},
        });
        return;
      }
      if (!result.ok) {
        setFailure({ message: result.message, errors: result.errors ?? {} });
        return;
      }
      setOpen(false);
      onDone(
        result.data.changed
          ? `The ${dependency.name} breaker settings are now version ${result.data.settings.version}.`
          : `The ${dependency.name} breaker already had these settings; nothing was changed.`,
      );
    });
  }

  const fieldErrors = failure?.errors ?? {};
  const anyFieldError = Object.keys(fieldErrors).length > 0;
  return (
    <Dialog open={open} onOpenChange={openChange}>
      <DialogTrigger className={buttonClass("quiet", "sm")}>
        Settings…<span className="sr-only"> of the {dependency.name} breaker</span>
      </DialogTrigger>
      <DialogContent
        title={`Breaker settings of ${dependency.name}`}
        description={
          `Saved as version ${dependency.settingsVersion + 1}, with your name and reason in the audit trail. The ` +
          "gate uses the new settings for the next call; the breaker's state and failure count are kept."
        }
        busy={pending}
        closeOnOutsideClick={false}
        closeButton={false}
      >
        <form onSubmit={submit} noValidate className="flex flex-col gap-4">
          {failure && !anyFieldError ? (
            <Notice tone="error" title="Nothing was saved" alert>
              {failure.message}
            </Notice>
          ) : null}
          <div className="grid gap-3 sm:grid-cols-3">
            {FIELDS.map((field) => {
              const errors = fieldErrors[field.errorKey];
              return (
                <div key={field.name} className="flex flex-col gap-1">
                  <label htmlFor={`${id}-${field.name}`} className="font-medium text-ink">
                    {field.label}
                  </label>
                  <input
                    id={`${id}-${field.name}`}
                    name={field.name}
                    type="number"
                    inputMode="decimal"
                    min={field.min}
                    max={field.max}
                    step={field.step}
                    defaultValue={field.initial(dependency)}
                    aria-invalid={errors ? true : undefined}
                    aria-describedby={`${id}-${field.name}-hint${errors ? ` ${id}-${field.name}-error` : ""}`}
                    className={inputClass(Boolean(errors), "tabular-nums")}
                  />
                  <FieldErrors id={`${id}-${field.name}-error`} errors={errors} />
                  <FieldHint id={`${id}-${field.name}-hint`}>{field.hint}</FieldHint>
                </div>
              );
            })}
          </div>
          <div className="flex flex-col gap-1">
            <label htmlFor={`${id}-reason`} className="font-medium text-ink">
              Reason
            </label>
            <textarea
              id={`${id}-reason`}
              name="reason"
              rows={2}
              maxLength={500}
              data-autofocus
              aria-invalid={fieldErrors.reason ? true : undefined}
              aria-describedby={`${id}-reason-hint${fieldErrors.reason ? ` ${id}-reason-error` : ""}`}
              className={inputClass(Boolean(fieldErrors.reason))}
            />
            <FieldErrors id={`${id}-reason-error`} errors={fieldErrors.reason} />
            <FieldHint id={`${id}-reason-hint`}>
              Kept with the version, e.g. “Stripe flaps during deploys: open sooner, close after 3 good probes”.
            </FieldHint>
          </div>
          <div className="flex justify-end gap-2">
            <DialogClose disabled={pending} className={buttonClass("secondary")}>
              Cancel
            </DialogClose>
            <button type="submit" disabled={pending} className={buttonClass("primary")}>
              {pending ? "Saving…" : "Save settings"}
            </button>
          </div>
        </form>
      </DialogContent>
    </Dialog>
  );
}
