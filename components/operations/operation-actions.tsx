"use client";
// The actions that fit an operation's phase (Approve retry, Reject, Reconcile), each through a dialog, applied
// optimistically.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { SeenVersion } from "@/lib/console/actions/operation-actions";
import type { OperationDetail } from "@/lib/ledger/reads/operations";
import { ActionBanner, type Banner } from "./action-banner";
import {
  actionsFor,
  optimisticDetail,
  seenOf,
  successText,
  type ActionRequest,
  type OperationActionKind,
} from "./action-effects";
import { ActionRefused, isConflict, sendAction } from "./action-request";
import { ApproveDialog } from "./approve-dialog";
import { consoleKeys } from "@/components/console-api";
import { ReconcileDialog } from "./reconcile-dialog";
import { RejectDialog } from "./reject-dialog";

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
    mutationFn: (v: ActionRequest) => sendAction(op.id, v),
    onMutate: async (v) => {
      await queryClient.cancelQueries({ queryKey: key });
      const previous = queryClient.getQueryData<OperationDetail>(key);
      if (previous) queryClient.setQueryData<OperationDetail>(key, optimisticDetail(previous, v));
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
  const dialogProps = dialog && {
    snapshot: dialog.snapshot,
    pending: mutation.isPending,
    error: dialogError,
    fieldErrors: refusal?.fieldErrors,
    changedMeanwhile,
    onCancel: cancel,
  };

  return (
    <div className="flex flex-col gap-3">
      <ActionBanner banner={banner} attempt={op.attempt} />
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
                className={
                  "rounded-md bg-phase-awaiting-approval px-3 py-1.5 font-medium text-white shadow-xs " +
                  "hover:bg-phase-awaiting-approval/85 disabled:opacity-60"
                }
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
                className={
                  "rounded-md bg-surface px-3 py-1.5 font-medium text-phase-failed-ink shadow-xs ring-1 " +
                  "ring-phase-failed/50 hover:bg-phase-failed-soft disabled:opacity-60"
                }
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

      {dialog?.kind === "approve" && dialogProps ? (
        <ApproveDialog
          {...dialogProps}
          onConfirm={(reason) =>
            mutation.mutate({ kind: "approve", reason, seen: dialog.seen, approvals: dialog.snapshot.approvals })
          }
        />
      ) : null}

      {dialog?.kind === "reject" && dialogProps ? (
        <RejectDialog
          {...dialogProps}
          onConfirm={(reason) => mutation.mutate({ kind: "reject", reason, seen: dialog.seen })}
        />
      ) : null}

      {dialog?.kind === "reconcile" && dialogProps ? (
        <ReconcileDialog
          {...dialogProps}
          mayApproveRetry={!fourEyesTied}
          onConfirm={(v) =>
            mutation.mutate({ kind: "reconcile", seen: dialog.seen, approvals: dialog.snapshot.approvals, ...v })
          }
        />
      ) : null}
    </div>
  );
}
