// The gate's decision on one operation with its run's allowance, as the API's GET, the console's operation page and the
// MCP gateway's answers give it (docs/run-allowance.md): a retry the allowance would refuse is STOP before it is tried,
// and an operation the allowance ended keeps the sentence that ended it rather than the failed phase's general one.
import type { ContractVersion, Dependency, Operation } from "@/lib/platform/generated/prisma/client";
import type { Ledger } from "@/lib/ledger/ledger";
import { decide } from "@/lib/retry-gate/decide";
import type { RunAllowanceStop } from "@/lib/retry-gate/run-allowance";
import type { Decision } from "@/lib/retry-gate/types";
import { gateInput } from "../reads/operation-view";
import { runBudget } from "./run-budget";

/** The decision that failed a FAILED operation because of its run's allowance, from its audit record; null otherwise. */
async function stopByRun(ledger: Ledger, op: Operation): Promise<Decision | null> {
  if (op.phase !== "FAILED") return null;
  const failed = await ledger.db.auditEvent.findFirst({
    where: { subjectType: "operation", subjectId: op.id, action: "operation.failed" },
    orderBy: { id: "desc" },
    select: { reason: true, data: true },
  });
  const data = failed?.data ? (JSON.parse(failed.data) as { runAllowance?: RunAllowanceStop }) : null;
  if (!failed?.reason || !data?.runAllowance) return null;
  return { action: "STOP", reason: failed.reason, runAllowance: data.runAllowance };
}

export async function decisionInRun(
  ledger: Ledger,
  op: Operation,
  contract: ContractVersion,
  dependency: Dependency | null,
  now: Date,
): Promise<Decision> {
  const stopped = await stopByRun(ledger, op);
  if (stopped) return stopped;
  const row = op.runId === null ? null : await ledger.db.runAllowance.findUnique({ where: { runId: op.runId } });
  // Only the operations of the key that declared the allowance spend it.
  const run = row !== null && row.keyId === op.plannedByKeyId ? runBudget(row) : null;
  return decide(gateInput(op, contract, dependency, now, run));
}
