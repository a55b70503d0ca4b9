// A gateway tool's current contract, read through the ledger's store: one query, the version itself from the store's
// cache.
import type { ContractView } from "@/lib/ledger/contracts/contract-schema";
import { contractView } from "@/lib/ledger/contracts/contract-view";
import type { Ledger } from "@/lib/ledger/ledger";

export async function toolContract(ledger: Ledger, name: string): Promise<ContractView | null> {
  const head = await ledger.store.contractHead(name);
  const row = head ? await ledger.store.contractVersion(name, head.version) : null;
  return row ? contractView(row) : null;
}
