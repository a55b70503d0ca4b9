// How long an operation has waited and how long its approval request has left, in the queues' words: "3 h 20 min",
// "expires in 42 min", "expired". Pure; the components pass the browser's clock in.
import { approvalExpired } from "@/lib/retry-gate/approval-expiry";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Under this much time left, a request is shown as urgent. */
export const URGENT_APPROVAL_MS = HOUR;

/** Whole units, rounded down, two units at most: "under 1 min", "12 min", "3 h 4 min", "2 d 5 h". */
export function formatAge(ms: number): string {
  if (ms < MINUTE) return "under 1 min";
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)} min`;
  if (ms < DAY) {
    const minutes = Math.floor((ms % HOUR) / MINUTE);
    return `${Math.floor(ms / HOUR)} h${minutes > 0 ? ` ${minutes} min` : ""}`;
  }
  const hours = Math.floor((ms % DAY) / HOUR);
  return `${Math.floor(ms / DAY)} d${hours > 0 ? ` ${hours} h` : ""}`;
}

export type DeadlineState = "none" | "open" | "urgent" | "expired";

export interface ApprovalDeadline {
  state: DeadlineState;
  /** "expires in 3 h 20 min", "expires in under 1 min", "expired", "no deadline". */
  text: string;
}

/**
 * Where a waiting request stands against its deadline. The core's rule says when it has run out (only after the
 * deadline, so the instant itself still reads "expires in under 1 min"); before the sweep has moved the operation it
 * already cannot be approved, and reads "expired" here too. A request without a deadline (written before deadlines
 * existed) never expires.
 */
export function approvalDeadline(expiresAtMs: number | null, nowMs: number): ApprovalDeadline {
  if (expiresAtMs === null) return { state: "none", text: "no deadline" };
  if (approvalExpired({ phase: "AWAITING_APPROVAL", approvalExpiresAt: expiresAtMs }, nowMs)) {
    return { state: "expired", text: "expired" };
  }
  const left = expiresAtMs - nowMs;
  return { state: left < URGENT_APPROVAL_MS ? "urgent" : "open", text: `expires in ${formatAge(left)}` };
}

/** "1 of 2 approvals"; null when one approval is all it takes, so the common case stays quiet. */
export function quorumText(approvals: { given: number; needed: number }): string | null {
  if (approvals.needed <= 1) return null;
  return `${approvals.given} of ${approvals.needed} approvals`;
}
