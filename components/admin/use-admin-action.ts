"use client";
// Runs an admin server action from a form: pending state, field errors and the failure message, success to a callback.
import { useCallback, useState, useTransition } from "react";
import type { ActionResult } from "@/lib/actions/console-action";

export interface ActionFailure {
  code: string;
  message: string;
  errors: Record<string, string[]>;
}

const UNREACHABLE: ActionFailure = {
  code: "unreachable",
  message: "The console server could not be reached, so this may not have been saved. Reload the page to see the current state.",
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

/** The text of a form field, "" when absent. */
export function formText(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === "string" ? value : "";
}
