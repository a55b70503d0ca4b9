// The two queue sizes the navigation shows, from the ledger's count of operations per phase.

export interface QueueCounts {
  unknown: number;
  awaitingApproval: number;
}

export function queueCounts(byPhase: Record<string, number>): QueueCounts {
  return { unknown: byPhase.UNKNOWN ?? 0, awaitingApproval: byPhase.AWAITING_APPROVAL ?? 0 };
}
