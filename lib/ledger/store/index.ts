// Which store serves a Prisma client: createDb attaches one, opened on first use and closed with the client.
import type { Db } from "@/lib/db";
import type { LedgerStore } from "./types";

// Kept on the client under global symbols, not in a module's WeakMap: a production build may bundle this module
// into several chunks, and every copy must find the store that createDb attached.
const OPEN = Symbol.for("opledger.ledgerStore.open");
const OPENED = Symbol.for("opledger.ledgerStore");

interface WithStore {
  [OPEN]?: () => LedgerStore;
  [OPENED]?: LedgerStore;
}

/** Called by createDb: the store for `client` talks to the same database, and `$disconnect` closes it too. */
export function attachLedgerStore(client: Db, open: () => LedgerStore): void {
  const holder = client as unknown as WithStore;
  holder[OPEN] = open;
  const disconnect = client.$disconnect.bind(client);
  client.$disconnect = async () => {
    const store = holder[OPENED];
    holder[OPENED] = undefined;
    await store?.close();
    await disconnect();
  };
}

/** The ledger store of a client made by createDb. */
export function ledgerStore(client: Db): LedgerStore {
  const holder = client as unknown as WithStore;
  const existing = holder[OPENED];
  if (existing) return existing;
  const open = holder[OPEN];
  if (!open) throw new Error("This Prisma client was not made by createDb, so it has no ledger store.");
  return (holder[OPENED] = open());
}

export type { LedgerReads, LedgerStore, LedgerTx } from "./types";
export { isUniqueViolation, UniqueViolation } from "./types";
