// An operation as a command (or a read) starts from: its row, its contract version, its dependency's breaker and its
// current attempt, read through the ledger's store.
import type { Attempt, ContractVersion, Dependency, Operation } from "@/lib/platform/generated/prisma/client";
import { LedgerError } from "../errors";
import type { LedgerReads } from "../store/types";

export interface OperationContext {
  op: Operation;
  contract: ContractVersion;
  dependency: Dependency | null;
  /** The attempt numbered op.attempt; null before the first dispatch. */
  attempt: Attempt | null;
}

/** Loads an operation, its contract version, its dependency's breaker and its current attempt. */
export async function loadContext(reads: LedgerReads, id: string): Promise<OperationContext> {
  const rows = await reads.operationContext(id);
  if (!rows) throw new LedgerError("not_found", `There is no operation ${id}.`);
  const { op } = rows;
  const contract = await reads.contractVersion(op.tool, op.contractVersion);
  if (!contract)
    throw new Error(`Operation ${id} refers to a missing contract version ${op.tool}@${op.contractVersion}.`);
  return { ...rows, contract };
}
