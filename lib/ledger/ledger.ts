// The ledger's one handle: the Prisma client (reads, admin writes) and the store the operation commands write
// through, opened together on one database and closed together. Pages, actions and routes ask ledger() for it.
import { sqliteFilePath } from "@/lib/platform/config/database-url";
import { env } from "@/lib/platform/config/env";
import { createDb, engineOf, SQLITE_BUSY_TIMEOUT_MS, type Db, type Engine } from "@/lib/platform/db/prisma";
import { Turns } from "@/lib/platform/db/sqlite-connection-guard";
import { openPostgresStore } from "./store/postgres/postgres-store";
import { openSqliteStore } from "./store/sqlite/sqlite-store";
import type { LedgerStore } from "./store/types";

export interface Ledger {
  readonly engine: Engine;
  /** The Prisma client, for the ledger's reads and the Prisma-side writes (contracts, dependencies, people, keys). */
  readonly db: Db;
  /** The operation commands' store, opened on first use. */
  readonly store: LedgerStore;
  close(): Promise<void>;
}

export interface LedgerOptions {
  /** PostgreSQL connections per pool (Prisma's and the store's). */
  poolSize?: number;
  sqliteBusyTimeoutMs?: number;
}

export function openLedger(url: string, options: LedgerOptions = {}): Ledger {
  const { poolSize = 10, sqliteBusyTimeoutMs = SQLITE_BUSY_TIMEOUT_MS } = options;
  const engine = engineOf(url);
  // On SQLite, Prisma's connection and the store's take turns: one transaction at a time in this process.
  const turns = new Turns();
  const db = createDb(url, { poolSize, sqliteBusyTimeoutMs, turns });
  const openStore = (): LedgerStore =>
    engine === "sqlite"
      ? openSqliteStore(sqliteFilePath(url) ?? url, turns, sqliteBusyTimeoutMs)
      : openPostgresStore(url, poolSize);
  let store: LedgerStore | null = null;
  return {
    engine,
    db,
    get store() {
      return (store ??= openStore());
    },
    async close() {
      const opened = store;
      store = null;
      await opened?.close();
      await db.$disconnect();
    },
  };
}

const globalForLedger = globalThis as unknown as { opledgerLedger?: Ledger };

/** The process-wide ledger on DATABASE_URL, kept on globalThis so hot reloads and duplicated chunks share it. */
export function ledger(): Ledger {
  if (globalForLedger.opledgerLedger) return globalForLedger.opledgerLedger;
  const { DATABASE_URL, DATABASE_POOL_SIZE } = env();
  return (globalForLedger.opledgerLedger = openLedger(DATABASE_URL, { poolSize: DATABASE_POOL_SIZE }));
}
