"use client";
// The confirmation for forcing a breaker open or closed or returning it to automatic: a dialog that says what will
// happen and asks why.
import { useEffect, useId, useRef, useState, useTransition, type FormEvent } from "react";
import { FieldErrors, FieldHint, inputClass, Notice } from "@/components/ui/form-controls";
import { buttonClass } from "@/components/ui/button-styles";
import { Dialog, DialogClose, DialogContent, DialogTrigger } from "@/components/ui/dialog";
import { forceDependencyBreaker } from "@/lib/console/actions/dependency-actions";
import type { BreakerOverride, DependencyView } from "@/lib/ledger/dependencies/dependencies";
import { assertNever } from "@/lib/retry-gate/exhaustive";

interface Failure {
  message: string;
  errors: Record<string, string[]>;
}

function listOf(tools: string[]): string {
  if (tools.length === 0) return "tools that name it";
  if (tools.length <= 3) return tools.join(", ");
  return `${tools.slice(0, 3).join(", ")} and ${tools.length - 3} more`;
}

export function overrideCopy(
  target: BreakerOverride,
  dep: DependencyView,
): { button: string; title: string; effect: string; confirm: string } {
  switch (target) {
    case "open":
      return {
        button: "Force open",
        title: `Force the ${dep.name} breaker open?`,
        effect:
          `Every new dispatch of ${listOf(dep.tools)} will be refused at once with an “unavailable” decision, ` +
          "without spending any attempt, until someone forces it closed or returns it to automatic. Calls already " +
          "in flight are not stopped; their outcomes are still recorded.",
        confirm: "Force open",
      };
    case "closed":
      return {
        button: "Force close",
        title: `Force the ${dep.name} breaker closed?`,
        effect:
          `Calls of ${listOf(dep.tools)} will go through even if ${dep.name} keeps failing: failures are still ` +
          "counted but will not open the breaker. Use this only when you know the provider is healthy and the " +
          "breaker is wrong.",
        confirm: "Force closed",
      };
    case "auto":
      return {
        button: "Return to automatic",
        title: `Return the ${dep.name} breaker to automatic?`,
        effect:
          `The override${dep.forcedReason ? ` (“${dep.forcedReason}”)` : ""} is removed. The breaker starts ` +
          `closed with its failure count at zero and opens by itself again after ${dep.failureThreshold} ` +
          "consecutive failures.",
        confirm: "Return to automatic",
      };
    default:
      return assertNever(target, "breaker override");
  }
}

export interface BreakerDialogProps {
  dependency: DependencyView;
  target: BreakerOverride;
  /** Called after the change was recorded, with a sentence to announce. */
  onDone: (message: string) => void;
}

/** The trigger button and its dialog; the dialog is modal, Escape or Cancel closes it, focus returns to the button. */
export function BreakerOverrideButton({ dependency, target, onDone }: BreakerDialogProps) {
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  const [open, setOpen] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [pending, startTransition] = useTransition();
  const id = useId();
  const copy = overrideCopy(target, dependency);
  const reasonErrors = failure?.errors.reason;

  useEffect(() => {
    if (reasonErrors) reasonRef.current?.focus();
  }, [reasonErrors]);

  function openChange(next: boolean) {
    // Each opening starts clean; the reason box is new each time because the dialog's content is unmounted when closed.
    if (next) setFailure(null);
    setOpen(next);
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const reason = reasonRef.current?.value ?? "";
    setFailure(null);
    startTransition(async () => {
      let result: Awaited<ReturnType<typeof forceDependencyBreaker>>;
      try {
        result = await forceDependencyBreaker({ name: dependency.name, state: target, reason });
      } catch {
        setFailure({
          message:
            "The console server could not be reached, so this may not have been recorded. Close this and check the breaker's state.",
          errors: {},
        });
        return;
      }
      if (!result.ok) {
        setFailure({ message: result.message, errors: result.errors ?? {} });
        return;
      }
      setOpen(false);
      const state = result.data.dependency;
      onDone(
        result.data.changed
          ? `The ${dependency.name} breaker is now ${state.state.replace("_", "-")}${state.forced ? " (forced)" : " (automatic)"}.`
          : `The ${dependency.name} breaker was already so; nothing was changed.`,
      );
    });
  }

  return (
    <Dialog open={open} onOpenChange={openChange}>
      <DialogTrigger className={buttonClass("quiet", "sm")}>
        {copy.button}
        <span className="sr-only"> the {dependency.name} breaker</span>
      </DialogTrigger>
      <DialogContent
        title={copy.title}
        description={copy.effect}
        busy={pending}
        closeOnOutsideClick={false}
        closeButton={false}
      >
        <form onSubmit={submit} noValidate className="flex flex-col gap-4">
          {failure && !reasonErrors ? (
            <Notice tone="error" title="Nothing was changed" alert>
              {failure.message}
            </Notice>
          ) : null}
          <div className="flex flex-col gap-1">
            <label htmlFor={`${id}-reason`} className="font-medium text-ink">
              Reason
            </label>
            <textarea
              id={`${id}-reason`}
              ref={reasonRef}
              name="reason"
              rows={3}
              maxLength={500}
              data-autofocus
              aria-invalid={reasonErrors ? true : undefined}
              aria-describedby={`${id}-hint${reasonErrors ? ` ${id}-error` : ""}`}
              className={inputClass(Boolean(reasonErrors))}
            />
            <FieldErrors id={`${id}-error`} errors={reasonErrors} />
            <FieldHint id={`${id}-hint`}>
              Recorded with your name in the audit trail and shown next to the breaker, e.g. “Stripe status page:
              incident INC-42”.
            </FieldHint>
          </div>
          <div className="flex justify-end gap-2">
            <DialogClose disabled={pending} className={buttonClass("secondary")}>
              Cancel
            </DialogClose>
            <button type="submit" disabled={pending} className={buttonClass(target === "open" ? "danger" : "primary")}>
              {pending ? "Recording…" : copy.confirm}
            </button>
          </div>
        </form>
      </DialogContent>
    </Dialog>
  );
}
