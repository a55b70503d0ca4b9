"use client";
// "Reconcile": the person records whether the lost attempt took effect, with what they looked at, optionally after
// asking the provider; "did not happen" may also approve one retry.
import { useMutation } from "@tanstack/react-query";
import { useId, useState } from "react";
import { lookupOperationAction, type LookupResult } from "@/lib/console/actions/lookup-actions";
import { FieldErrors } from "@/components/ui/form-controls";
import { formText } from "@/components/ui/form-text";
import { ActionDialog } from "./action-dialog";
import type { ReconcileAnswer } from "./action-effects";
import { ActionRefused, unwrap } from "./action-request";
import { ChangedMeanwhile } from "./changed-meanwhile";
import type { DecisionDialogProps } from "./decision-dialog-props";
import { LookupEvidencePanel } from "./lookup-evidence";

export function ReconcileDialog({
  snapshot: op,
  changedMeanwhile,
  mayApproveRetry,
  onConfirm,
  ...shared
}: DecisionDialogProps<ReconcileAnswer> & {
  /** False when four-eyes keeps this person from approving the retry: the dialog does not offer it. */
  mayApproveRetry: boolean;
}) {
  const [outcome, setOutcome] = useState<"applied" | "not_applied" | null>(null);
  const [outcomeMissing, setOutcomeMissing] = useState(false);
  const [providerId, setProviderId] = useState("");
  const [evidence, setEvidence] = useState("");
  const ids = { provider: useId(), providerError: useId(), evidence: useId(), outcomeError: useId(), retry: useId() };
  const providerErrors = shared.fieldErrors?.providerId;

  // The lookup only reads: it fills in what it found, and the person still chooses and gives the reason.
  const lookup = useMutation({
    mutationFn: async (): Promise<LookupResult> => unwrap(await lookupOperationAction({ id: op.id })),
    onSuccess: (found) => {
      setEvidence(found.text);
      if (found.suggestion) {
        setOutcome(found.suggestion.outcome);
        setOutcomeMissing(false);
        if (found.suggestion.outcome === "applied" && found.suggestion.providerId)
          setProviderId(found.suggestion.providerId);
      }
    },
  });

  function choose(next: "applied" | "not_applied") {
    setOutcome(next);
    setOutcomeMissing(false);
  }

  return (
    <ActionDialog
      open
      {...shared}
      title={`Reconcile attempt ${op.attempt} of ${op.tool}`}
      tone="primary"
      confirmLabel="Record reconciliation"
      reasonPlaceholder="e.g. looked up the key in the provider dashboard: no charge exists"
      onConfirm={(form) => {
        if (outcome === null) {
          setOutcomeMissing(true);
          return;
        }
        onConfirm({
          outcome,
          reason: formText(form, "reason").trim(),
          providerId: outcome === "applied" ? providerId.trim() || undefined : undefined,
          evidence: evidence.trim() || undefined,
          approveRetry: outcome === "not_applied" && form.get("approveRetry") === "on",
        });
      }}
      consequence={
        <>
          <p>
            Record what really happened to attempt {op.attempt}, after looking it up with the provider (idempotency key{" "}
            <code className="font-mono text-[12px] text-ink">{op.idempotencyKey}</code>). The operation moves to{" "}
            <strong className="text-ink">Reconciled</strong>; this cannot be undone.
          </p>
          <ChangedMeanwhile show={changedMeanwhile} />
        </>
      }
    >
      <div className="flex flex-wrap items-center gap-3">
        <button
          type="button"
          onClick={() => lookup.mutate()}
          disabled={lookup.isPending || shared.pending}
          className="rounded-md px-3 py-1.5 font-medium ring-1 ring-line-strong hover:bg-surface-muted disabled:opacity-60"
        >
          {lookup.isPending ? "Asking the provider…" : "Run provider lookup"}
        </button>
        <span className="text-xs text-ink-subtle">Reads only; fills in what it finds. You still decide.</span>
      </div>
      {lookup.data ? <LookupEvidencePanel evidence={lookup.data.found} /> : null}
      {lookup.error ? (
        <p
          role="alert"
          className="rounded-md border border-phase-failed/40 bg-phase-failed-soft px-3 py-2 text-phase-failed-ink"
        >
          {lookup.error instanceof ActionRefused
            ? lookup.error.message
            : "The lookup did not reach the server. Try again."}
        </p>
      ) : null}
      <fieldset aria-describedby={outcomeMissing ? ids.outcomeError : undefined}>
        <legend className="mb-1.5 font-medium">What did the provider do?</legend>
        <div className="flex flex-col gap-2">
          <label
            className={
              "flex items-start gap-2 rounded-md p-2 ring-1 ring-line-strong has-[:checked]:bg-phase-confirmed-soft " +
              "has-[:checked]:ring-phase-confirmed/50"
            }
          >
            <input
              type="radio"
              name="outcome"
              value="applied"
              checked={outcome === "applied"}
              onChange={() => choose("applied")}
              data-autofocus
              className="mt-1"
            />
            <span>
              <span className="font-medium">Effect happened</span>
              <span className="block text-ink-muted">
                The provider did it. The operation is finished and will never be retried.
              </span>
            </span>
          </label>
          {outcome === "applied" ? (
            <div className="ml-7">
              <label htmlFor={ids.provider} className="mb-1 block font-medium">
                Provider id <span className="font-normal text-ink-subtle">(required)</span>
              </label>
              <input
                id={ids.provider}
                name="providerId"
                required
                maxLength={500}
                value={providerId}
                onChange={(e) => setProviderId(e.target.value)}
                placeholder="e.g. ch_3PqL2x…"
                aria-invalid={providerErrors ? true : undefined}
                aria-describedby={providerErrors ? ids.providerError : undefined}
                className="w-full rounded-md border border-line-strong bg-surface px-2.5 py-1.5 font-mono text-[13px] shadow-xs"
              />
              <FieldErrors id={ids.providerError} errors={providerErrors} className="mt-1" />
            </div>
          ) : null}
          <label
            className={
              "flex items-start gap-2 rounded-md p-2 ring-1 ring-line-strong has-[:checked]:bg-surface-muted " +
              "has-[:checked]:ring-ink/40"
            }
          >
            <input
              type="radio"
              name="outcome"
              value="not_applied"
              checked={outcome === "not_applied"}
              onChange={() => choose("not_applied")}
              className="mt-1"
            />
            <span>
              <span className="font-medium">Effect did not happen</span>
              <span className="block text-ink-muted">
                Nothing changed in the world. Another attempt may follow if the gate or a person allows it.
              </span>
            </span>
          </label>
          {outcome === "not_applied" && mayApproveRetry ? (
            <label htmlFor={ids.retry} className="ml-7 flex items-start gap-2">
              <input id={ids.retry} type="checkbox" name="approveRetry" className="mt-1" />
              <span>
                Also approve one retry (attempt {op.attempt + 1})
                <span className="block text-ink-muted">
                  {op.approvals.needed > 1
                    ? `Your approval is the first of the ${op.approvals.needed} this contract needs: ` +
                      "the operation then waits for the others."
                    : "Grants exactly one more dispatch with the same key."}
                </span>
              </span>
            </label>
          ) : null}
        </div>
        {outcomeMissing ? (
          <p id={ids.outcomeError} role="alert" className="mt-1 text-xs font-medium text-phase-failed-ink">
            Choose whether the effect happened.
          </p>
        ) : null}
      </fieldset>
      <div>
        <label htmlFor={ids.evidence} className="mb-1 block font-medium">
          Evidence <span className="font-normal text-ink-subtle">(what you looked at; optional)</span>
        </label>
        <textarea
          id={ids.evidence}
          name="evidence"
          rows={3}
          maxLength={20000}
          value={evidence}
          onChange={(e) => setEvidence(e.target.value)}
          placeholder="e.g. provider lookup response, dashboard link, ticket number"
          className="w-full rounded-md border border-line-strong bg-surface px-2.5 py-2 font-mono text-[12.5px] shadow-xs"
        />
      </div>
    </ActionDialog>
  );
}
