// The retry gate's decision as a coloured, labelled pill; the colours live in app/globals.css (--color-decision-*).
import { assertNever } from "@/lib/retry-gate/exhaustive";
import type { DecisionAction } from "@/lib/retry-gate/types";
import { StatusPill } from "@/components/ui/status-pill";

interface DecisionStyle {
  label: string;
  tone: string;
  dot: string;
}

// Class names are written out in full so Tailwind can find them in the source.
function decisionStyle(action: DecisionAction): DecisionStyle {
  switch (action) {
    case "DISPATCH":
      return {
        label: "Dispatch",
        tone: "bg-decision-dispatch-soft text-decision-dispatch-ink ring-decision-dispatch/30",
        dot: "bg-decision-dispatch",
      };
    case "RETRY":
      return {
        label: "Retry",
        tone: "bg-decision-retry-soft text-decision-retry-ink ring-decision-retry/30",
        dot: "bg-decision-retry",
      };
    case "RETRY_SAME_KEY":
      return {
        label: "Retry with same key",
        tone: "bg-decision-retry-same-key-soft text-decision-retry-same-key-ink ring-decision-retry-same-key/30",
        dot: "bg-decision-retry-same-key",
      };
    case "WAIT":
      return {
        label: "Wait",
        tone: "bg-decision-wait-soft text-decision-wait-ink ring-decision-wait/30",
        dot: "bg-decision-wait",
      };
    case "RECONCILE":
      return {
        label: "Reconcile",
        tone: "bg-decision-reconcile-soft text-decision-reconcile-ink ring-decision-reconcile/40",
        dot: "bg-decision-reconcile",
      };
    case "APPROVAL":
      return {
        label: "Needs approval",
        tone: "bg-decision-approval-soft text-decision-approval-ink ring-decision-approval/30",
        dot: "bg-decision-approval",
      };
    case "UNAVAILABLE":
      return {
        label: "Unavailable",
        tone: "bg-decision-unavailable-soft text-decision-unavailable-ink ring-decision-unavailable/30",
        dot: "bg-decision-unavailable",
      };
    case "STOP":
      return {
        label: "Stop",
        tone: "bg-decision-stop-soft text-decision-stop-ink ring-decision-stop/30",
        dot: "bg-decision-stop",
      };
    default:
      return assertNever(action, "decision action");
  }
}

/** The words for a decision, for places that show it without a pill. */
export function decisionLabel(action: DecisionAction): string {
  return decisionStyle(action).label;
}

export interface DecisionBadgeProps {
  action: DecisionAction;
  className?: string;
}

export function DecisionBadge({ action, className }: DecisionBadgeProps) {
  const style = decisionStyle(action);
  return (
    <StatusPill
      label={style.label}
      toneClassName={style.tone}
      dotClassName={style.dot}
      data={{ "data-decision": action }}
      className={className}
    />
  );
}
