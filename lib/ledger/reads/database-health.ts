// Readiness: whether the ledger's database answers a trivial query.
import type { Ledger } from "@/lib/ledger/ledger";

export async function databaseAnswers(ledger: Ledger): Promise<void> {
  await ledger.db.$queryRawUnsafe("SELECT 1");
}
