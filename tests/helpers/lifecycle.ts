// Short-hands for driving an operation through the ledger in tests.
import type { Db } from "@/lib/db/prisma";
import { dispatchOperation } from "@/lib/ledger/commands/dispatch";
import { claimLease } from "@/lib/ledger/commands/lease";
import { reportOutcome, type OutcomeInput } from "@/lib/ledger/commands/outcome";
import { planOperation, type PlanInput } from "@/lib/ledger/commands/plan";
import { LedgerError } from "@/lib/ledger/errors";
import { agent } from "./ledger-fixtures";

export async function planAndClaim(client: Db, input: PlanInput, now: Date, workerId = "w1", leaseMs = 30_000) {
  const { operation } = await planOperation(client, input, agent, now);
  const lease = await claimLease(client, operation.id, { workerId, leaseMs }, agent, now);
  return { id: operation.id, fence: lease.fence };
}

export async function dispatch(client: Db, id: string, fence: number, now: Date) {
  return dispatchOperation(client, id, { fence }, agent, now);
}

export async function outcome(client: Db, id: string, input: OutcomeInput, now: Date) {
  return reportOutcome(client, id, input, agent, now, () => 0.5);
}

/** The LedgerError code a promise rejects with, or "resolved". */
export async function codeOf(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => "resolved",
    (e: unknown) => (e instanceof LedgerError ? e.code : `unexpected: ${String(e)}`),
  );
}
