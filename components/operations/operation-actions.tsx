"use client";
// The actions that fit an operation's phase (Approve retry, Reject, Reconcile), each through a dialog, applied
// optimistically.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import type { ActionResult } from "@/lib/actions/console-action";
import { lookupOperationAction, type LookupResult } from "@/lib/actions/lookup-actions";
import {
  approveOperationAction,
  reconcileOperationAction,
  rejectOperationAction,
  type ActionOutcome,
  type SeenVersion,
} from "@/lib/actions/operation-actions";
import { operationMovedOn, refusalText } from "@/lib/console/refusals";
import type { OperationDetail } from "@/lib/ledger/reads/operations";
import { assertNever } from "@/lib/retry-gate/exhaustive";
import { personActionsFor, type PersonAction } from "@/lib/retry-gate/person-actions";
import { afterApproval, completesQuorum, reconciledUnderQuorum } from "@/lib/retry-gate/person-decisions";
import { FieldErrors } from "@/components/ui/form-controls";
import { formText } from "@/components/ui/form-text";
import { ActionDialog } from "./action-dialog";
import { consoleKeys } from "./console-api";
import { LookupEvidencePanel } from "./lookup-evidence";

export type OperationActionKind = PersonAction;

/**
 * Which buttons to offer: the domain's rule, less the approval four-eyes keeps this person from giving; the ledger
 * enforces both again when a button is used.
 */
export function actionsFor(
  op: Pick<OperationDetail, "phase" | "evidence">,
  fourEyesTied = false,
): OperationActionKind[] {
  return personActionsFor(op.phase, op.evidence).filter((action) => !(fourEyesTied && action === "approve"));
}

/**
 * `seen` is the version the person decided on; its attempt number is also what the success message names. An
 * approval also carries the quorum the person saw, so the page can say whether theirs completed it.
 */
type Variables =
  | { kind: "approve"; reason: string; seen: SeenVersion; approvals: Quorum }
  | { kind: "reject"; reason: string; seen: SeenVersion }
  | {
      kind: "reconcile";
      reason: string;
      seen: SeenVersion;
      outcome: "applied" | "not_applied";
      providerId?: string;
      evidence?: string;
      approveRetry: boolean;
      approvals: Quorum;
    };

type Quorum = OperationDetail["approvals"];

/** Whether one more approval still leaves the quorum short, so the attempt is not granted yet. */
const quorumShortAfterOne = (q: Quorum): boolean => !completesQuorum(q.given, q.needed);

/** A refusal from the ledger, in the console's words for the codes that have them. */
class ActionRefused extends Error {
  override name = "ActionRefused";
  constructor(
    readonly code: string,
    message: string,
    readonly fieldErrors: Record<string, string[]> | undefined,
  ) {
    super(refusalText(code, message));
  }
}

/** Someone acted first, or the request ran out: the dialog closes and the page shows what is true now. */
function isConflict(error: unknown): boolean {
  return error instanceof ActionRefused && operationMovedOn(error.code);
}

async function run(id: string, v: Variables): Promise<ActionOutcome> {
  let result: ActionResult<ActionOutcome>;
  switch (v.kind) {
    case "approve":
      result = await approveOperationAction({ id, seen: v.seen, reason: v.reason });
      break;
    case "reject":
      result = await rejectOperationAction({ id, seen: v.seen, reason: v.reason });
      break;
    case "reconcile":
      result = await reconcileOperationAction({
        id,
        seen: v.seen,
        reason: v.reason,
        outcome: v.outcome,
        ...(v.providerId ? { providerId: v.providerId } : {}),
        ...(v.evidence ? { evidence: v.evidence } : {}),
        approveRetry: v.approveRetry,
      });
      break;
    default:
      return assertNever(v, "action");
  }
  if (!result.ok) throw new ActionRefused(result.code, result.message, result.errors);
  return result.data;
}

/** What the page shows until the server's answer arrives: the phase the action leads to. */
function optimistic(op: OperationDetail, v: Variables): OperationDetail {
  switch (v.kind) {
    case "approve":
      // An approval the quorum still waits beyond is counted; only the last one moves the operation on.
      return quorumShortAfterOne(op.approvals)
        ? { ...op, approvals: { ...op.approvals, given: op.approvals.given + 1 } }
        : { ...op, ...afterApproval(op) };
    case "reject":
      return { ...op, phase: "REJECTED", rejectionReason: `rejected by you: ${v.reason}` };
    case "reconcile": {
      // The ledger's own rule: with a quorum, the person's approval is the first and the operation waits for the others.
      const { awaitsQuorum, ...reconciled } = reconciledUnderQuorum(op, v, v.approvals.needed);
      return awaitsQuorum
        ? { ...op, ...reconciled, approvals: { given: 1, needed: v.approvals.needed } }
        : { ...op, ...reconciled };
    }
    default:
      return assertNever(v, "action");
  }
}

function successText(v: Variables): string {
  const next = v.seen.attempt + 1;
  switch (v.kind) {
    case "approve":
      return quorumShortAfterOne(v.approvals)
        ? `Your approval is recorded: ${v.approvals.given + 1} of ${v.approvals.needed}. Attempt ${next} is granted once ${v.approvals.needed - v.approvals.given - 1 === 1 ? "one more person approves" : `${v.approvals.needed - v.approvals.given - 1} more people approve`} before the request expires.`
        : `Approved: attempt ${next} may be dispatched once. Your approval and reason are in the timeline.`;
    case "reject":
      return "Rejected: no further attempt will be dispatched. Your reason is in the timeline and reaches the agent.";
    case "reconcile":
      return v.outcome === "applied"
        ? "Reconciled as “effect happened”: the operation is finished and will not be retried."
        : v.approveRetry
          ? !completesQuorum(0, v.approvals.needed)
            ? `Reconciled as “effect did not happen”, with your approval (1 of ${v.approvals.needed}); attempt ${next} waits for the others.`
            : `Reconciled as “effect did not happen”, and attempt ${next} is approved.`
          : "Reconciled as “effect did not happen”. A retry still needs an approval or the gate's go-ahead.";
    default:
      return assertNever(v, "action");
  }
}

const seenOf = (op: OperationDetail): SeenVersion => ({
  phase: op.phase,
  attempt: op.attempt,
  approvedAttempt: op.approvedAttempt,
  evidence: op.evidence,
});

/**
 * The outcome of the person's last action; it belongs to the attempt it was about and disappears once another attempt
 * leaves.
 */
type Banner = { tone: "success" | "conflict"; text: string; attempt: number; at: number };

export interface OperationActionsProps {
  operation: OperationDetail;
  canAct: boolean;
  fourEyesTied: boolean;
}

export function OperationActions({ operation: op, canAct, fourEyesTied }: OperationActionsProps) {
  const queryClient = useQueryClient();
  const key = consoleKeys.detail(op.id);
  // The dialog keeps the version the person saw when they opened it, even if a refresh arrives meanwhile.
  const [dialog, setDialog] = useState<{
    kind: OperationActionKind;
    seen: SeenVersion;
    snapshot: OperationDetail;
  } | null>(null);
  const [banner, setBanner] = useState<Banner | null>(null);

  const mutation = useMutation({
    mutationFn: (v: Variables) => run(op.id, v),
    onMutate: async (v) => {
      await queryClient.cancelQueries({ queryKey: key });
      const previous = queryClient.getQueryData<OperationDetail>(key);
      if (previous) queryClient.setQueryData<OperationDetail>(key, optimistic(previous, v));
      return { previous };
    },
    onError: (error, v, context) => {
      // Roll back to what the server last said; the refetch below replaces it with what is true now.
      if (context?.previous) queryClient.setQueryData(key, context.previous);
      if (isConflict(error)) {
        setDialog(null);
        setBanner({ tone: "conflict", text: error.message, attempt: v.seen.attempt, at: Date.now() });
      }
    },
    onSuccess: (_data, v) => {
      setDialog(null);
      setBanner({ tone: "success", text: successText(v), attempt: v.seen.attempt, at: Date.now() });
    },
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: consoleKeys.operations }),
        queryClient.invalidateQueries({ queryKey: consoleKeys.counts }),
      ]),
  });

  const available = actionsFor(op, fourEyesTied);
  const refusal = mutation.error instanceof ActionRefused && !isConflict(mutation.error) ? mutation.error : null;
  const otherError = mutation.error && !(mutation.error instanceof ActionRefused) ? mutation.error : null;

  function open(kind: OperationActionKind) {
    mutation.reset();
    setBanner(null);
    setDialog({ kind, seen: seenOf(op), snapshot: op });
  }
  function cancel() {
    mutation.reset();
    setDialog(null);
  }
  const changedMeanwhile =
    dialog !== null &&
    JSON.stringify(dialog.seen) !== JSON.stringify(seenOf(mutation.isPending ? dialog.snapshot : op));

  const dialogError =
    refusal?.message ??
    (otherError
      ? "The request did not reach the server, or its answer was lost. Reload the page and read the timeline before trying again."
      : null);

  return (
    <div className="flex flex-col gap-3">
      {banner && (banner.tone === "conflict" || banner.attempt === op.attempt) ? (
        <p
          role={banner.tone === "conflict" ? "alert" : "status"}
          className={`rounded-md border px-3 py-2 ${
            banner.tone === "conflict"
              ? "border-phase-unknown/50 bg-phase-unknown-soft text-phase-unknown-ink"
              : "border-phase-confirmed/40 bg-phase-confirmed-soft text-phase-confirmed-ink"
          }`}
        >
          <span className="font-mono text-xs opacity-80">{new Date(banner.at).toISOString().slice(11, 19)} UTC · </span>
          {banner.text}
        </p>
      ) : null}
      {canAct && fourEyesTied && op.phase === "AWAITING_APPROVAL" ? (
        <p className="text-ink-muted" data-testid="four-eyes-tied">
          You are tied to this operation (it runs under an API key bound to you, or you asked for this approval), so
          another person must approve it: the four-eyes rule.
        </p>
      ) : null}
      {available.length > 0 ? (
        canAct ? (
          <div className="flex flex-wrap gap-2" aria-label="Actions" role="group">
            {available.includes("approve") ? (
              <button
                type="button"
                onClick={() => open("approve")}
                disabled={mutation.isPending}
                className="rounded-md bg-phase-awaiting-approval px-3 py-1.5 font-medium text-white shadow-xs hover:bg-phase-awaiting-approval/85 disabled:opacity-60"
              >
                Approve retry
              </button>
            ) : null}
            {available.includes("reconcile") ? (
              <button
                type="button"
                onClick={() => open("reconcile")}
                disabled={mutation.isPending}
                className="rounded-md bg-ink px-3 py-1.5 font-medium text-surface shadow-xs hover:bg-ink/85 disabled:opacity-60"
              >
                Reconcile
              </button>
            ) : null}
            {available.includes("reject") ? (
              <button
                type="button"
                onClick={() => open("reject")}
                disabled={mutation.isPending}
                className="rounded-md bg-surface px-3 py-1.5 font-medium text-phase-failed-ink shadow-xs ring-1 ring-phase-failed/50 hover:bg-phase-failed-soft disabled:opacity-60"
              >
                Reject
              </button>
            ) : null}
          </div>
        ) : (
          <p className="text-ink-muted">
            You can look but not act: approving, rejecting and reconciling need the operator role.
          </p>
        )
      ) : null}

      {dialog?.kind === "approve" ? (
        <ActionDialog
          open
          title={`Approve attempt ${dialog.snapshot.attempt + 1} of ${dialog.snapshot.tool}?`}
          tone="primary"
          confirmLabel="Confirm approval"
          pending={mutation.isPending}
          error={dialogError}
          fieldErrors={refusal?.fieldErrors}
          reasonPlaceholder="e.g. checked with the customer: the first charge was declined, charge once more"
          onCancel={cancel}
          onConfirm={(form) =>
            mutation.mutate({
              kind: "approve",
              reason: formText(form, "reason").trim(),
              seen: dialog.seen,
              approvals: dialog.snapshot.approvals,
            })
          }
          consequence={
            <>
              {quorumShortAfterOne(dialog.snapshot.approvals) ? (
                <p>
                  This contract needs <strong className="text-ink">{dialog.snapshot.approvals.needed}</strong> people to
                  approve; yours will be {dialog.snapshot.approvals.given + 1} of {dialog.snapshot.approvals.needed}.
                  Attempt {dialog.snapshot.attempt + 1} is granted, once and with the same idempotency key, when the
                  last of them approves before the request expires.
                </p>
              ) : (
                <p>
                  This grants exactly <strong className="text-ink">one</strong> more attempt: attempt{" "}
                  {dialog.snapshot.attempt + 1} may be dispatched once, with the same idempotency key. If it fails
                  again, the gate stops and asks a person again.
                  {dialog.snapshot.approvals.needed > 1
                    ? ` Yours is the last of the ${dialog.snapshot.approvals.needed} approvals it needs.`
                    : null}
                </p>
              )}
              <ChangedMeanwhile show={changedMeanwhile} />
            </>
          }
        />
      ) : null}

      {dialog?.kind === "reject" ? (
        <ActionDialog
          open
          title={`Reject this ${dialog.snapshot.tool} operation?`}
          tone="danger"
          confirmLabel="Confirm rejection"
          pending={mutation.isPending}
          error={dialogError}
          fieldErrors={refusal?.fieldErrors}
          reasonPlaceholder="e.g. duplicate of an order that already shipped"
          onCancel={cancel}
          onConfirm={(form) =>
            mutation.mutate({ kind: "reject", reason: formText(form, "reason").trim(), seen: dialog.seen })
          }
          consequence={
            <>
              <p>
                The operation ends as <strong className="text-ink">Rejected</strong>: no further attempt will be
                dispatched, and the agent receives your reason. This cannot be undone.
              </p>
              <ChangedMeanwhile show={changedMeanwhile} />
            </>
          }
        />
      ) : null}

      {dialog?.kind === "reconcile" ? (
        <ReconcileDialog
          snapshot={dialog.snapshot}
          pending={mutation.isPending}
          error={dialogError}
          fieldErrors={refusal?.fieldErrors}
          changedMeanwhile={changedMeanwhile}
          mayApproveRetry={!fourEyesTied}
          onCancel={cancel}
          onConfirm={(v) =>
            mutation.mutate({ kind: "reconcile", seen: dialog.seen, approvals: dialog.snapshot.approvals, ...v })
          }
        />
      ) : null}
    </div>
  );
}

function ChangedMeanwhile({ show }: { show: boolean }) {
  if (!show) return null;
  return (
    <p className="mt-2 rounded-md border border-phase-unknown/50 bg-phase-unknown-soft px-3 py-2 text-phase-unknown-ink">
      This operation changed while this dialog was open. Confirming will be refused; cancel and read the timeline first.
    </p>
  );
}

function ReconcileDialog(props: {
  snapshot: OperationDetail;
  pending: boolean;
  error: string | null;
  fieldErrors: Record<string, string[]> | undefined;
  changedMeanwhile: boolean;
  /** False when four-eyes keeps this person from approving the retry: the dialog does not offer it. */
  mayApproveRetry: boolean;
  onCancel: () => void;
  onConfirm: (v: {
    reason: string;
    outcome: "applied" | "not_applied";
    providerId?: string;
    evidence?: string;
    approveRetry: boolean;
  }) => void;
}) {
  const { snapshot: op } = props;
  const [outcome, setOutcome] = useState<"applied" | "not_applied" | null>(null);
  const [outcomeMissing, setOutcomeMissing] = useState(false);
  const [providerId, setProviderId] = useState("");
  const [evidence, setEvidence] = useState("");
  const ids = { provider: useId(), providerError: useId(), evidence: useId(), outcomeError: useId(), retry: useId() };
  const providerErrors = props.fieldErrors?.providerId;

  // The lookup only reads: it fills in what it found, and the person still chooses and gives the reason.
  const lookup = useMutation({
    mutationFn: async (): Promise<LookupResult> => {
      const result = await lookupOperationAction({ id: op.id });
      if (!result.ok) throw new ActionRefused(result.code, result.message, result.errors);
      return result.data;
    },
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
      title={`Reconcile attempt ${op.attempt} of ${op.tool}`}
      tone="primary"
      confirmLabel="Record reconciliation"
      pending={props.pending}
      error={props.error}
      fieldErrors={props.fieldErrors}
      reasonPlaceholder="e.g. looked up the key in the provider dashboard: no charge exists"
      onCancel={props.onCancel}
      onConfirm={(form) => {
        if (outcome === null) {
          setOutcomeMissing(true);
          return;
        }
        props.onConfirm({
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
          <ChangedMeanwhile show={props.changedMeanwhile} />
        </>
      }
    >
      <div className="flex flex-wrap items-center gap-3">
        <button
          type="button"
          onClick={() => lookup.mutate()}
          disabled={lookup.isPending || props.pending}
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
          <label className="flex items-start gap-2 rounded-md p-2 ring-1 ring-line-strong has-[:checked]:bg-phase-confirmed-soft has-[:checked]:ring-phase-confirmed/50">
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
          <label className="flex items-start gap-2 rounded-md p-2 ring-1 ring-line-strong has-[:checked]:bg-surface-muted has-[:checked]:ring-ink/40">
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
          {outcome === "not_applied" && props.mayApproveRetry ? (
            <label htmlFor={ids.retry} className="ml-7 flex items-start gap-2">
              <input id={ids.retry} type="checkbox" name="approveRetry" className="mt-1" />
              <span>
                Also approve one retry (attempt {op.attempt + 1})
                <span className="block text-ink-muted">
                  {op.approvals.needed > 1
                    ? `Your approval is the first of the ${op.approvals.needed} this contract needs: the operation then waits for the others.`
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
