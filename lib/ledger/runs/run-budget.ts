// A run's allowance as the gate reads it (lib/retry-gate/run-allowance.ts). Kept apart from run-allowances.ts, which
// writes, so that reads a browser bundle may reach (lib/ledger/reads) do not pull the store in.
import type { RunAllowance } from "@/lib/platform/generated/prisma/client";
import type { RunBudget } from "@/lib/retry-gate/run-allowance";

export function runBudget(row: RunAllowance): RunBudget {
  return {
    runId: row.runId,
    deadlineAt: row.deadlineAt?.getTime() ?? null,
    maxRetries: row.maxRetries,
    maxBackoffMs: row.maxBackoffMs,
    retriesUsed: row.retriesUsed,
    backoffUsedMs: row.backoffUsedMs,
  };
}
