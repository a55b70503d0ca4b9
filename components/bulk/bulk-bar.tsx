"use client";
// The action bar over an operation table: how many are picked, "all that match this filter", and the bulk actions
// this page offers. Each action opens the preview dialog; nothing changes before its Run.
import dynamic from "next/dynamic";
import { useState } from "react";
import { buttonClass } from "@/components/ui/button-styles";
import type { BulkActionName } from "@/lib/ledger/bulk/request";
import { actionLabel, type BulkTarget } from "./bulk-target";
import type { BulkSelection } from "./use-bulk-selection";

// The dialog (preview, run, progress and their actions) loads when a person opens it, not with every table that can
// select rows: the ledger page's first load waits for every script it carries.
const BulkDialog = dynamic(() => import("./bulk-dialog").then((m) => m.BulkDialog));

export interface BulkBarProps {
  selection: BulkSelection;
  actions: readonly BulkActionName[];
  /** Rows shown on this page. */
  pageIds: readonly string[];
  /** Every operation matching the page's filter, as a bulk target (built when the person asks, so "older than" is now). */
  matchingTarget: () => BulkTarget;
  /** What "all that match" means here, for the bar: "every UNKNOWN operation", "all that match this filter". */
  matchingLabel: string;
}

export function BulkBar({ selection, actions, pageIds, matchingTarget, matchingLabel }: BulkBarProps) {
  const [open, setOpen] = useState<{ action: BulkActionName; target: BulkTarget } | null>(null);
  const count = selection.selected.size;
  const pageAllSelected = pageIds.length > 0 && pageIds.every((id) => selection.selected.has(id));
  if (count === 0 && !selection.allMatching) return null;

  const start = (action: BulkActionName) =>
    setOpen({ action, target: selection.allMatching ? matchingTarget() : { ids: [...selection.selected] } });

  return (
    <div
      role="region"
      aria-label="Bulk actions"
      className={
        "mb-2 flex flex-wrap items-center gap-x-3 gap-y-2 rounded-md bg-surface-muted px-3 py-2 text-sm ring-1 " +
        "ring-line-strong ring-inset"
      }
    >
      <p className="font-medium text-ink" aria-live="polite" data-bulk-selected={selection.allMatching ? "all" : count}>
        {selection.allMatching ? `Selected: ${matchingLabel}` : `${count} selected`}
      </p>
      {!selection.allMatching && pageAllSelected ? (
        <button type="button" className={buttonClass("quiet", "sm")} onClick={selection.selectAllMatching}>
          Select {matchingLabel}
        </button>
      ) : null}
      <div role="group" aria-label="Act on the selection" className="flex flex-wrap gap-2">
        {actions.map((action) => (
          <button key={action} type="button" className={buttonClass("secondary", "sm")} onClick={() => start(action)}>
            {actionLabel(action)}…
          </button>
        ))}
      </div>
      <button type="button" className={`${buttonClass("quiet", "sm")} ml-auto`} onClick={selection.clear}>
        Clear selection
      </button>
      {open ? (
        <BulkDialog
          action={open.action}
          target={open.target}
          onClose={(finished) => {
            setOpen(null);
            if (finished) selection.clear();
          }}
        />
      ) : null}
    </div>
  );
}
