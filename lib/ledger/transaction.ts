// Runs a write again when a concurrent writer won a conditional update or the database was briefly busy.
import { LedgerError } from "./errors";

const MAX_TRIES = 5;

/** Raised inside a transaction when a conditional write matched no row: the whole transaction is retried. */
export class WriteConflict extends Error {
  override name = "WriteConflict";
}

function isRetryable(error: unknown): boolean {
  if (error instanceof WriteConflict) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  // P2034: write conflict or deadlock (PostgreSQL); SQLITE_BUSY surfaces as a socket timeout through the adapter.
  return code === "P2034" || /SQLITE_BUSY|database is locked|could not serialize|deadlock detected/i.test(error.message);
}

export async function withWriteRetry<T>(work: () => Promise<T>): Promise<T> {
  for (let tryNumber = 1; ; tryNumber++) {
    try {
      return await work();
    } catch (error) {
      if (!isRetryable(error)) throw error;
      if (tryNumber >= MAX_TRIES) {
        throw new LedgerError("write_conflict", "The operation kept changing under this request; try again.");
      }
      await new Promise((resolve) => setTimeout(resolve, tryNumber * 5));
    }
  }
}
