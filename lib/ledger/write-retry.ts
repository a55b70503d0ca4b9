// Runs a write again when a concurrent writer won a conditional update or the database was briefly busy.
import { LedgerError } from "./errors";
import { isWriteConflict } from "./store/types";

const MAX_TRIES = 5;

/**
 * SQLite kept its lock past busy_timeout (the adapter reports SQLITE_BUSY as P1008 "Operation has timed out", or as
 * a bare driver error at COMMIT), or this process's transactions queued past Prisma's maxWait (P2028).
 */
function isBusy(error: Error): boolean {
  const details = error as { code?: unknown; meta?: { driverAdapterError?: { cause?: unknown } }; cause?: unknown };
  const cause = (details.meta?.driverAdapterError?.cause ?? details.cause) as { originalCode?: unknown } | undefined;
  if (typeof cause?.originalCode === "string" && cause.originalCode.startsWith("SQLITE_BUSY")) return true;
  // Another process committed after this transaction's first read (SQLITE_BUSY_SNAPSHOT): only a fresh start helps.
  if (/SQLITE_BUSY|database is locked/i.test(error.message)) return true;
  return details.code === "P2028" && /Unable to start a transaction in the given time/.test(error.message);
}

type Retry = "conflict" | "busy" | null;

function retryKind(error: unknown): Retry {
  if (isWriteConflict(error)) return "conflict";
  if (!(error instanceof Error)) return null;
  if (isBusy(error)) return "busy";
  // P2034: write conflict or deadlock (PostgreSQL).
  const code = (error as { code?: unknown }).code;
  return code === "P2034" || /could not serialize|deadlock detected/i.test(error.message) ? "conflict" : null;
}

export async function withWriteRetry<T>(work: () => Promise<T>): Promise<T> {
  for (let tryNumber = 1; ; tryNumber++) {
    try {
      return await work();
    } catch (error) {
      const kind = retryKind(error);
      if (kind === null) throw error;
      if (tryNumber >= MAX_TRIES) {
        throw kind === "busy"
          ? new LedgerError(
              "database_busy",
              "The database stayed locked by another writer; nothing was written, try again shortly.",
            )
          : new LedgerError("write_conflict", "The operation kept changing under this request; try again.");
      }
      await new Promise((resolve) => setTimeout(resolve, tryNumber * 5));
    }
  }
}
