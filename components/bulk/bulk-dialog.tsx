"use client";
// The bulk action dialog: (for a reconcile, its outcome and evidence) → the preview, frozen for 15 minutes → a reason
// and Run → the job's progress and its report. Nothing changes before Run; the run acts on exactly the previewed set.
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { buttonClass } from "@/components/ui/button-styles";
import { Dialog, DialogContent } from "@/components/ui/dialog";
import { FieldErrors, inputClass, Notice } from "@/components/ui/form-controls";
import { consoleKeys } from "@/components/console-api";
import type { ActionResult } from "@/lib/console/actions/console-action";
import { previewBulkAction, runBulkAction } from "@/lib/console/actions/bulk-actions";
import type { BulkPreview } from "@/lib/ledger/bulk/preview";
import type { BulkActionName } from "@/lib/ledger/bulk/request";
import { BulkPreviewSummary } from "./bulk-preview-summary";
import { BulkProgress } from "./bulk-progress";
import { formText } from "@/components/ui/form-text";
import { actionExplanation, actionLabel, type BulkTarget } from "./bulk-target";

type Stage =
  | { kind: "form" }
  | { kind: "previewing" }
  | { kind: "preview"; preview: BulkPreview }
  | { kind: "job"; jobId: string };

interface Refusal {
  message: string;
  errors?: Record<string, string[]>;
}

function refusalOf(result: ActionResult<unknown>): Refusal | null {
  return result.ok ? null : { message: result.message, ...(result.errors ? { errors: result.errors } : {}) };
}

export interface BulkDialogProps {
  action: BulkActionName;
  target: BulkTarget;
  /** `finished`: a job was started, so the selection is spent. */
  onClose: (finished: boolean) => void;
}

export function BulkDialog({ action, target, onClose }: BulkDialogProps) {
  const [stage, setStage] = useState<Stage>(action === "reconcile" ? { kind: "form" } : { kind: "previewing" });
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [pending, setPending] = useState(false);
  const started = useRef(false);
  const queryClient = useQueryClient();

  async function preview(extra: { outcome?: "applied" | "not_applied"; evidence?: string } = {}) {
    setStage({ kind: "previewing" });
    setRefusal(null);
    const result = await previewBulkAction({ action, ...target, ...extra });
    if (result.ok) setStage({ kind: "preview", preview: result.data });
    else {
      setRefusal(refusalOf(result));
      setStage(action === "reconcile" ? { kind: "form" } : { kind: "previewing" });
    }
  }

  // A preview is a dry run: the dialog asks for it at once, except for a reconcile, which first needs its evidence.
  useEffect(() => {
    if (action === "reconcile" || started.current) return;
    started.current = true;
    void preview();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, on opening
  }, []);

  async function run(previewId: string, reason: string) {
    setPending(true);
    setRefusal(null);
    const result = await runBulkAction({ previewId, reason });
    setPending(false);
    if (result.ok) setStage({ kind: "job", jobId: result.data.jobId });
    else setRefusal(refusalOf(result));
  }

  const close = () => {
    void queryClient.invalidateQueries({ queryKey: consoleKeys.operations });
    void queryClient.invalidateQueries({ queryKey: consoleKeys.counts });
    onClose(stage.kind === "job");
  };

  return (
    <Dialog open onOpenChange={(open) => !open && !pending && close()}>
      <DialogContent
        wide
        busy={pending}
        closeOnOutsideClick={false}
        title={`${actionLabel(action)}: bulk action`}
        description={actionExplanation(action)}
      >
        {stage.kind === "form" ? (
          <ReconcileForm refusal={refusal} onSubmit={(extra) => void preview(extra)} onCancel={close} />
        ) : stage.kind === "previewing" ? (
          refusal ? (
            <div className="flex flex-col gap-3">
              <Notice tone="error" alert title="No preview">
                {refusal.message}
              </Notice>
              <div className="flex justify-end">
                <button type="button" className={buttonClass("secondary")} onClick={close}>
                  Close
                </button>
              </div>
            </div>
          ) : (
            <p className="text-ink-muted" role="status">
              Working out the exact set…
            </p>
          )
        ) : stage.kind === "preview" ? (
          <RunForm
            preview={stage.preview}
            pending={pending}
            refusal={refusal}
            onRun={(reason) => void run(stage.preview.previewId, reason)}
            onCancel={close}
          />
        ) : (
          <BulkProgress jobId={stage.jobId} onDone={close} />
        )}
      </DialogContent>
    </Dialog>
  );
}

function ReconcileForm({
  refusal,
  onSubmit,
  onCancel,
}: {
  refusal: Refusal | null;
  onSubmit: (extra: { outcome: "applied" | "not_applied"; evidence: string }) => void;
  onCancel: () => void;
}) {
  const outcomeId = useId();
  const evidenceId = useId();
  const evidenceErrorId = useId();
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    onSubmit({
      outcome: data.get("outcome") === "applied" ? "applied" : "not_applied",
      evidence: formText(data, "evidence"),
    });
  }
  const evidenceErrors = refusal?.errors?.evidence;
  return (
    <form onSubmit={submit} className="flex flex-col gap-3">
      <div className="flex flex-col gap-1">
        <label htmlFor={outcomeId} className="font-medium text-ink">
          What the evidence shows
        </label>
        <select id={outcomeId} name="outcome" className={inputClass()} data-autofocus defaultValue="not_applied">
          <option value="not_applied">The effect did not happen (not applied)</option>
          <option value="applied">The effect happened (applied)</option>
        </select>
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor={evidenceId} className="font-medium text-ink">
          One piece of evidence, for every operation
        </label>
        <textarea
          id={evidenceId}
          name="evidence"
          required
          rows={3}
          aria-describedby={evidenceErrors ? evidenceErrorId : undefined}
          className={inputClass(Boolean(evidenceErrors))}
          placeholder="For example: the provider's status page says no request was processed between 02:10 and 02:20"
        />
        <FieldErrors id={evidenceErrorId} errors={evidenceErrors} />
      </div>
      {refusal && !evidenceErrors ? (
        <Notice tone="error" alert>
          {refusal.message}
        </Notice>
      ) : null}
      <div className="flex justify-end gap-2">
        <button type="button" className={buttonClass("secondary")} onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className={buttonClass("primary")}>
          Preview
        </button>
      </div>
    </form>
  );
}

function RunForm({
  preview,
  pending,
  refusal,
  onRun,
  onCancel,
}: {
  preview: BulkPreview;
  pending: boolean;
  refusal: Refusal | null;
  onRun: (reason: string) => void;
  onCancel: () => void;
}) {
  const reasonId = useId();
  const reasonErrorId = useId();
  const acting = preview.items.length;
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!pending) onRun(formText(new FormData(event.currentTarget), "reason"));
  }
  const reasonErrors = refusal?.errors?.reason;
  return (
    <form onSubmit={submit} className="flex flex-col gap-4">
      <BulkPreviewSummary preview={preview} />
      <p className="text-xs text-ink-subtle">
        This preview is frozen until {new Date(preview.expiresAt).toLocaleTimeString()}: the run acts on exactly these
        operations, and any that changed meanwhile are reported stale and left untouched.
      </p>
      {acting > 0 ? (
        <div className="flex flex-col gap-1">
          <label htmlFor={reasonId} className="font-medium text-ink">
            Reason (recorded with your name on every operation)
          </label>
          <textarea
            id={reasonId}
            name="reason"
            required
            rows={2}
            data-autofocus
            aria-describedby={reasonErrors ? reasonErrorId : undefined}
            className={inputClass(Boolean(reasonErrors))}
          />
          <FieldErrors id={reasonErrorId} errors={reasonErrors} />
        </div>
      ) : (
        <Notice tone="info">Every matched operation is skipped: there is nothing to run.</Notice>
      )}
      {refusal && !reasonErrors ? (
        <Notice tone="error" alert>
          {refusal.message}
        </Notice>
      ) : null}
      <div className="flex justify-end gap-2">
        <button type="button" className={buttonClass("secondary")} onClick={onCancel} disabled={pending}>
          Cancel
        </button>
        {acting > 0 ? (
          <button type="submit" className={buttonClass(preview.warning ? "danger" : "primary")} disabled={pending}>
            {pending ? "Starting…" : `Run on ${acting.toLocaleString("en")} operation${acting === 1 ? "" : "s"}`}
          </button>
        ) : null}
      </div>
    </form>
  );
}
