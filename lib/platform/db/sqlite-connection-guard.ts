// Guards Prisma's better-sqlite3 adapter (one shared connection): queries outside a transaction wait for it instead of
// joining it, and a failed COMMIT is rolled back and frees the connection (docs/decisions/008-sqlite-busy.md).
import type { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";

type Factory = PrismaBetterSQLite3;
type Adapter = Awaited<ReturnType<Factory["connect"]>>;
type Transaction = Awaited<ReturnType<Adapter["startTransaction"]>>;
type Query = Parameters<Adapter["queryRaw"]>[0];

/** A first-come first-served lock: `acquire` resolves with the function that hands the connection on. */
export class Turns {
  #tail: Promise<void> = Promise.resolve();

  acquire(): Promise<() => void> {
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    const granted = this.#tail.then(() => release);
    this.#tail = this.#tail.then(() => done);
    return granted;
  }

  async alone<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await work();
    } finally {
      release();
    }
  }
}

const ROLLBACK: Query = { sql: "ROLLBACK", args: [], argTypes: [] };

/**
 * Prisma runs COMMIT as a statement and only then calls commit(); if COMMIT fails (SQLITE_BUSY) it calls neither
 * commit() nor rollback(), which would leave the connection inside the transaction and the adapter's own lock held
 * for good. Here a failed COMMIT rolls back and releases both, so the failure stays with its one request.
 */
function guardedTransaction(tx: Transaction, release: () => void): Transaction {
  let open = true;
  const finish = async (end: () => Promise<void>): Promise<void> => {
    if (!open) return;
    open = false;
    try {
      await end();
    } finally {
      release();
    }
  };
  return {
    provider: tx.provider,
    adapterName: tx.adapterName,
    options: tx.options,
    queryRaw: (query) => tx.queryRaw(query),
    executeRaw: async (query) => {
      try {
        return await tx.executeRaw(query);
      } catch (error) {
        if (query.sql.trim().toUpperCase() === "COMMIT") {
          await finish(async () => {
            await tx.executeRaw(ROLLBACK).catch(() => undefined);
            await tx.rollback();
          });
        }
        throw error;
      }
    },
    commit: () => finish(() => tx.commit()),
    rollback: () => finish(() => tx.rollback()),
  };
}

function guardedAdapter(adapter: Adapter, turns: Turns): Adapter {
  return {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    queryRaw: (query) => turns.alone(() => adapter.queryRaw(query)),
    executeRaw: (query) => turns.alone(() => adapter.executeRaw(query)),
    executeScript: (script) => turns.alone(() => adapter.executeScript(script)),
    dispose: () => adapter.dispose(),
    startTransaction: async (isolationLevel) => {
      const release = await turns.acquire();
      try {
        return guardedTransaction(await adapter.startTransaction(isolationLevel), release);
      } catch (error) {
        release();
        throw error;
      }
    },
  };
}

/**
 * The adapter factory for PrismaClient, with every connection it opens guarded. `turns` is shared with the ledger's
 * own connection to the same file (lib/ledger/store/sqlite/sqlite-store.ts), so the two never hold transactions at the
 * same time.
 */
export function guardSqliteConnection(
  factory: Factory,
  turns: Turns,
): Pick<Factory, "provider" | "adapterName" | "connect"> {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => guardedAdapter(await factory.connect(), turns),
  };
}
