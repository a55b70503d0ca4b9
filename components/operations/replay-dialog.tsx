"use client";
// Replay…: on an operation that is over, the arguments in a JSON editor, the warning that the tool runs again, and a
// reason; the replay is a new operation, and the page goes there.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { replayOperationAction } from "@/lib/console/actions/replay-actions";
import type { OperationDetail } from "@/lib/ledger/reads/operations";
import { canReplay, replayNeedsApproval } from "@/lib/retry-gate/replay";
import { buttonClass } from "@/components/ui/button-styles";
import { FieldErrors } from "@/components/ui/form-controls";
import { ActionDialog } from "./action-dialog";
import { consoleKeys } from "@/components/console-api";

/** The ledger's refusal of the replay (nothing written), shown in place. */
interface Refusal {
  code: string;
  message: string;
  errors?: Record<string, string[]>;
}

class ReplayFailed extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.message);
  }
}

function reasonOf(form: FormData): string {
  const value = form.get("reason");
  return typeof value === "string" ? value : "";
}

export function ReplayButton({ op, canAct }: { op: OperationDetail; canAct: boolean }) {
  const [open, setOpen] = useState(false);
  if (!canAct || !canReplay(op.phase, op.evidence)) return null;
  return (
    <>
      <button type="button" className={buttonClass("secondary", "sm")} onClick={() => setOpen(true)} data-replay-button>
        Replay…
      </button>
      {open ? <ReplayDialog op={op} onClose={() => setOpen(false)} /> : null}
    </>
  );
}

function ReplayDialog({ op, onClose }: { op: OperationDetail; onClose: () => void }) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const argsId = useId();
  const argsErrorId = useId();
  const [argsText, setArgsText] = useState(() => JSON.stringify(op.args, null, 2));
  const mutation = useMutation({
    mutationFn: async (reason: string) => {
      const result = await replayOperationAction({ id: op.id, argsText, reason });
      if (!result.ok) throw new ReplayFailed({ code: result.code, message: result.message, errors: result.errors });
      return result.data.replay;
    },
    onSuccess: async (replay) => {
      await queryClient.invalidateQueries({ queryKey: consoleKeys.operations });
      router.push(`/operations/${encodeURIComponent(replay.id)}`);
    },
  });
  const refusal = mutation.error instanceof ReplayFailed ? mutation.error.refusal : null;
  const waits = replayNeedsApproval(op.effect);

  return (
    <ActionDialog
      open
      title={`Replay ${op.tool}`}
      tone="danger"
      confirmLabel="Replay: run the tool again"
      pending={mutation.isPending}
      error={mutation.error ? (refusal?.message ?? mutation.error.message) : null}
      fieldErrors={refusal?.errors}
      reasonPlaceholder="Why this call must be made again, and what you changed"
      onCancel={onClose}
      onConfirm={(form) => mutation.mutate(reasonOf(form))}
      consequence={
        <>
          <p
            role="note"
            className="mb-2 rounded-md border border-phase-failed/40 bg-phase-failed-soft px-3 py-2 font-medium text-phase-failed-ink"
            data-replay-warning
          >
            This executes the tool again: a new operation with a new idempotency key is planned with these arguments,
            and the agent&apos;s workers run it{waits ? " once a second person approves it" : ""}.
          </p>
          <p>
            This operation ({op.phase.toLowerCase()}) stays as it is; the replay links to it.{" "}
            {waits
              ? "The tool is NON_RETRYABLE, so the replay waits for another person's approval: you cannot approve it yourself."
              : "It goes through the retry gate like any other call."}
          </p>
        </>
      }
    >
      <div>
        <label htmlFor={argsId} className="mb-1 block font-medium">
          Arguments <span className="font-normal text-ink-subtle">(a JSON object; edit what must change)</span>
        </label>
        <textarea
          id={argsId}
          name="args"
          value={argsText}
          onChange={(event) => setArgsText(event.target.value)}
          rows={Math.min(14, Math.max(4, argsText.split("\n").length))}
          spellCheck={false}
          data-autofocus
          aria-invalid={refusal?.errors?.args ? true : undefined}
          aria-describedby={refusal?.errors?.args ? argsErrorId : undefined}
          className={
            "w-full rounded-md border border-line-strong bg-surface-sunken px-2.5 py-2 font-mono text-[12px] " +
            "leading-relaxed shadow-xs"
          }
          data-replay-args
        />
        <FieldErrors id={argsErrorId} errors={refusal?.errors?.args} className="mt-1" />
      </div>
    </ActionDialog>
  );
}
