// Which store serves a Prisma client: createDb attaches one, opened on first use and closed with the client.
import type { Db } from "@/lib/db";
import type { LedgerStore } from "./types";

const openers = new WeakMap<Db, () => LedgerStore>();
const stores = new WeakMap<Db, LedgerStore>();

/** Called by createDb: the store for `client` talks to the same database, and `$disconnect` closes it too. */
export function attachLedgerStore(client: Db, open: () => LedgerStore): void {
  openers.set(client, open);
  const disconnect = client.$disconnect.bind(client);
  client.$disconnect = async () => {
    const store = stores.get(client);
    stores.delete(client);
    await store?.close();
    await disconnect();
  };
}

/** The ledger store of a client made by createDb. */
export function ledgerStore(client: Db): LedgerStore {
  const existing = stores.get(client);
  if (existing) return existing;
  const open = openers.get(client);
  if (!open) throw new Error("This Prisma client was not made by createDb, so it has no ledger store.");
  const store = open();
  stores.set(client, store);
  return store;
}

export type { LedgerReads, LedgerStore, LedgerTx } from "./types";
export { UniqueViolation } from "./types";
