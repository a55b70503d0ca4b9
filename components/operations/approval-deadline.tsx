"use client";
// Time left before an approval request expires ("expires in 3 h 20 min"), live, urgent under an hour, "expired" once
// past; and the quorum ("1 of 2 approvals") when more than one person must approve.
import { formatExactUtc, toEpochMs } from "@/components/ui/format-time";
import { LIVE_TICK_MS, useNow } from "@/components/ui/use-now";
import { assertNever } from "@/lib/retry-gate/exhaustive";
import { approvalDeadline, quorumText, type DeadlineState } from "@/lib/console/wait-time";

function stateClass(state: DeadlineState): string {
  switch (state) {
    case "open":
      return "text-phase-awaiting-approval-ink";
    // Red like a failure about to happen, and bold: the text says it too, so colour is never the only sign.
    case "urgent":
      return "font-semibold text-phase-failed-ink";
    case "expired":
      return "text-ink-muted";
    case "none":
      return "text-ink-subtle";
    default:
      return assertNever(state, "deadline state");
  }
}

/**
 * The deadline of a waiting request. Before the browser's clock is known (server rendering), the exact UTC deadline is
 * shown, so the server's and the browser's HTML match.
 */
export function ApprovalDeadline({ expiresAt, className = "" }: { expiresAt: string | null; className?: string }) {
  const now = useNow(LIVE_TICK_MS);
  const expiresMs = expiresAt === null ? null : toEpochMs(expiresAt);
  if (expiresMs === null) return <span className={`text-ink-subtle ${className}`}>no deadline</span>;
  const exact = formatExactUtc(expiresMs);
  const deadline = now === null ? null : approvalDeadline(expiresMs, now);
  return (
    <time
      dateTime={new Date(expiresMs).toISOString()}
      title={`${deadline?.state === "expired" ? "expired" : "expires"} at ${exact}`}
      data-deadline={deadline?.state ?? "pending"}
      className={`whitespace-nowrap tabular-nums ${deadline ? stateClass(deadline.state) : "text-ink-muted"} ${className}`}
    >
      {deadline === null ? `expires ${exact}` : deadline.text}
    </time>
  );
}

/** "1 of 2 approvals", or nothing when one approval is enough. */
export function QuorumCount({
  approvals,
  className = "",
}: {
  approvals: { given: number; needed: number };
  className?: string;
}) {
  const text = quorumText(approvals);
  if (!text) return null;
  return (
    <span
      className={
        "inline-flex rounded-full bg-phase-awaiting-approval-soft px-2 py-px text-xs font-medium " +
        "whitespace-nowrap text-phase-awaiting-approval-ink ring-1 ring-phase-awaiting-approval/30 ring-inset " +
        `tabular-nums ${className}`
      }
      data-quorum={`${approvals.given}/${approvals.needed}`}
    >
      {text}
    </span>
  );
}
