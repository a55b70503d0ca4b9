// Short-hands for driving an operation through the ledger in tests.
import type { Ledger } from "@/lib/ledger/ledger";
import { dispatchOperation } from "@/lib/ledger/commands/dispatch";
import { claimLease } from "@/lib/ledger/commands/lease";
import { reportOutcome, type OutcomeInput } from "@/lib/ledger/commands/outcome";
import { planOperation, type PlanInput } from "@/lib/ledger/commands/plan";
import { LedgerError } from "@/lib/ledger/errors";
import { agent } from "./ledger-fixtures";

export async function planAndClaim(ledger: Ledger, input: PlanInput, now: Date, workerId = "w1", leaseMs = 30_000) {
  const { operation } = await planOperation(ledger, input, agent, now);
  const lease = await claimLease(ledger, operation.id, { workerId, leaseMs }, agent, now);
  return { id: operation.id, fence: lease.fence };
}

/** Dispatch as the API answers it: the dispatched operation, or the refusal thrown. */
export async function dispatch(ledger: Ledger, id: string, fence: number, now: Date) {
  const result = await dispatchOperation(ledger, id, { fence }, agent, now);
  if ("refused" in result) throw result.refused;
  return result.operation;
}

export async function outcome(ledger: Ledger, id: string, input: OutcomeInput, now: Date) {
  return reportOutcome(ledger, id, input, agent, now, () => 0.5);
}

/** The LedgerError code a promise rejects with, or "resolved". */
export async function codeOf(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => "resolved",
    (e: unknown) => (e instanceof LedgerError ? e.code : `unexpected: ${String(e)}`),
  );
}
