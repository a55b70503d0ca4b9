// An operation's phase as a coloured, labelled pill; the colours live in app/globals.css (--color-phase-*).
import { assertNever } from "@/lib/retry-gate/exhaustive";
import type { Phase } from "@/lib/retry-gate/types";
import { StatusPill } from "@/components/ui/status-pill";

interface PhaseStyle {
  label: string;
  tone: string;
  dot: string;
}

// Class names are written out in full so Tailwind can find them in the source.
function phaseStyle(phase: Phase): PhaseStyle {
  switch (phase) {
    case "PLANNED":
      return {
        label: "Planned",
        tone: "bg-phase-planned-soft text-phase-planned-ink ring-phase-planned/30",
        dot: "bg-phase-planned",
      };
    case "AUTHORIZED":
      return {
        label: "Authorized",
        tone: "bg-phase-authorized-soft text-phase-authorized-ink ring-phase-authorized/30",
        dot: "bg-phase-authorized",
      };
    case "DISPATCHED":
      return {
        label: "Dispatched",
        tone: "bg-phase-dispatched-soft text-phase-dispatched-ink ring-phase-dispatched/30",
        dot: "bg-phase-dispatched",
      };
    case "CONFIRMED":
      return {
        label: "Confirmed",
        tone: "bg-phase-confirmed-soft text-phase-confirmed-ink ring-phase-confirmed/30",
        dot: "bg-phase-confirmed",
      };
    case "UNKNOWN":
      return {
        label: "Unknown",
        tone: "bg-phase-unknown-soft text-phase-unknown-ink ring-phase-unknown/40",
        dot: "bg-phase-unknown",
      };
    case "RECONCILED":
      return {
        label: "Reconciled",
        tone: "bg-phase-reconciled-soft text-phase-reconciled-ink ring-phase-reconciled/30",
        dot: "bg-phase-reconciled",
      };
    case "RETRY_SCHEDULED":
      return {
        label: "Retry scheduled",
        tone: "bg-phase-retry-scheduled-soft text-phase-retry-scheduled-ink ring-phase-retry-scheduled/30",
        dot: "bg-phase-retry-scheduled",
      };
    case "AWAITING_APPROVAL":
      return {
        label: "Awaiting approval",
        tone: "bg-phase-awaiting-approval-soft text-phase-awaiting-approval-ink ring-phase-awaiting-approval/30",
        dot: "bg-phase-awaiting-approval",
      };
    case "FAILED":
      return {
        label: "Failed",
        tone: "bg-phase-failed-soft text-phase-failed-ink ring-phase-failed/30",
        dot: "bg-phase-failed",
      };
    case "REJECTED":
      return {
        label: "Rejected",
        tone: "bg-phase-rejected-soft text-phase-rejected-ink ring-phase-rejected/30",
        dot: "bg-phase-rejected",
      };
    // Muted grey rather than red: nothing failed and nobody said no; the request simply ran out. Built from the
    // neutral tokens until app/globals.css has its own --color-phase-expired-* family.
    case "EXPIRED":
      return {
        label: "Expired",
        tone: "bg-surface-sunken text-ink-muted ring-line-strong",
        dot: "bg-ink-subtle",
      };
    default:
      return assertNever(phase, "phase");
  }
}

/** The words for a phase, for places that show it without a pill (filters, titles). */
export function phaseLabel(phase: Phase): string {
  return phaseStyle(phase).label;
}

export interface PhaseBadgeProps {
  phase: Phase;
  className?: string;
}

export function PhaseBadge({ phase, className }: PhaseBadgeProps) {
  const style = phaseStyle(phase);
  return (
    <StatusPill
      label={style.label}
      toneClassName={style.tone}
      dotClassName={style.dot}
      data={{ "data-phase": phase }}
      className={className}
    />
  );
}
