// Reads the operation again to describe a result that is already decided.
import type { OpledgerClient, Operation } from "./client";

/** The operation as the ledger has it now, for a result; the last known state if the ledger cannot say. */
export async function snapshot(client: OpledgerClient, fallback: Operation): Promise<Operation> {
  try {
    return await client.getOperation(fallback.id);
  } catch {
    // Only used to describe a result that is already decided; a failed read must not hide it.
    return fallback;
  }
}
