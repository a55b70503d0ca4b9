"use client";
// Runs an admin server action from a form: pending state, field errors and the failure message, success to a callback.
import { useCallback, useState, useTransition, type FormEvent } from "react";
import type { ActionResult } from "@/lib/console/actions/console-action";

export interface ActionFailure {
  code: string;
  message: string;
  errors: Record<string, string[]>;
}

const UNREACHABLE: ActionFailure = {
  code: "unreachable",
  message:
    "The console server could not be reached, so this may not have been saved. Reload the page to see the current state.",
  errors: {},
};

export function useAdminAction<I, T>(action: (input: I) => Promise<ActionResult<T>>) {
  const [pending, startTransition] = useTransition();
  const [failure, setFailure] = useState<ActionFailure | null>(null);

  const run = useCallback(
    (input: I, onSuccess: (data: T) => void) => {
      setFailure(null);
      startTransition(async () => {
        let result: ActionResult<T>;
        try {
          result = await action(input);
        } catch {
          setFailure(UNREACHABLE);
          return;
        }
        if (result.ok) onSuccess(result.data);
        else setFailure({ code: result.code, message: result.message, errors: result.errors ?? {} });
      });
    },
    [action],
  );

  const reset = useCallback(() => setFailure(null), []);

  return { run, pending, failure, fieldErrors: failure?.errors ?? {}, reset };
}

/**
 * The open state and submit handler of an admin dialog that runs one action: closing it clears the failure, and a
 * success closes it and reports `message(data)` to `onDone`.
 */
export function useAdminDialog<I, T>(
  action: (input: I) => Promise<ActionResult<T>>,
  onDone: (message: string) => void,
) {
  const [open, setOpen] = useState(false);
  const { run, pending, failure, fieldErrors, reset } = useAdminAction(action);

  function onOpenChange(next: boolean) {
    setOpen(next);
    if (!next) reset();
  }

  function submitWith(toInput: (form: FormData) => I, message: (data: T, input: I) => string) {
    return (event: FormEvent<HTMLFormElement>) => {
      event.preventDefault();
      const input = toInput(new FormData(event.currentTarget));
      run(input, (data) => {
        setOpen(false);
        onDone(message(data, input));
      });
    };
  }

  return { open, onOpenChange, pending, failure, fieldErrors, submitWith };
}
