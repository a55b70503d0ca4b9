// The gate's decision on one operation with its run's allowance, as the API's GET and the console's operation page
// answer it (docs/run-allowance.md): a retry the allowance would refuse is STOP before it is tried, and an operation the
// allowance ended keeps the sentence that ended it rather than the failed phase's general one.
import type { AuditEvent, Operation } from "@/lib/generated/prisma/client";
import type { Ledger } from "@/lib/ledger/ledger";
import type { RunBudget, RunAllowanceStop } from "@/lib/retry-gate/run-allowance";
import type { Decision } from "@/lib/retry-gate/types";
import { runBudget } from "./run-allowances";

/** The allowance the operation spends (its own key's, for its run), as the gate reads it; null when there is none. */
export async function runBudgetOf(ledger: Ledger, op: Operation): Promise<RunBudget | null> {
  if (op.runId === null) return null;
  const row = await ledger.db.runAllowance.findUnique({ where: { runId: op.runId } });
  return row !== null && row.keyId === op.plannedByKeyId ? runBudget(row) : null;
}

/** The decision that failed a FAILED operation because of its run's allowance, from its audit trail; null otherwise. */
export function stopByRun(op: Operation, audit: AuditEvent[]): Decision | null {
  if (op.phase !== "FAILED") return null;
  const failed = audit.findLast((event) => event.action === "operation.failed");
  const data = failed?.data ? (JSON.parse(failed.data) as { runAllowance?: RunAllowanceStop }) : null;
  if (!failed?.reason || !data?.runAllowance) return null;
  return { action: "STOP", reason: failed.reason, runAllowance: data.runAllowance };
}
