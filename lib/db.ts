// The one Prisma client: picks the driver adapter from DATABASE_URL and is reused across hot reloads.
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { PrismaClient as PostgresPrismaClient } from "@/lib/generated/prisma-pg/client";
import { guardSqliteConnection, Turns } from "@/lib/sqlite-connection-guard";
import { ensureSqliteDirectory, sqliteFilePath } from "@/lib/config/database-url";
import { attachLedgerStore } from "@/lib/ledger/store";
import { openPostgresStore } from "@/lib/ledger/store/postgres";
import { openSqliteStore } from "@/lib/ledger/store/sqlite";
import { env } from "@/lib/config/env";

export type Db = PrismaClient;

export type Engine = "sqlite" | "postgresql";

/** How long a SQLite writer waits for a lock before failing with SQLITE_BUSY. */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

export function createDb(url: string, poolSize = 10, sqliteBusyTimeoutMs = SQLITE_BUSY_TIMEOUT_MS): Db {
  if (isSqlite(url)) {
    ensureSqliteDirectory(url);
    // Prisma's connection and the ledger store's take turns: one transaction at a time in this process.
    const turns = new Turns();
    const client = new PrismaClient({ adapter: guardSqliteConnection(new PrismaBetterSQLite3({ url, timeout: sqliteBusyTimeoutMs }), turns) });
    attachLedgerStore(client, () => openSqliteStore(sqliteFilePath(url) ?? url, turns, sqliteBusyTimeoutMs));
    return client;
  }
  // The one place the engines meet: both clients are generated from the same models (prisma/postgresql/schema.prisma is
  // derived from prisma/schema.prisma, and scripts/pg-schema.test.ts fails on drift), so they share one model API and
  // differ only in provider-specific extras the code does not use. Everything else is typed against the SQLite client.
  const client = new PostgresPrismaClient({ adapter: new PrismaPg({ connectionString: url, max: poolSize }) }) as unknown as Db;
  attachLedgerStore(client, () => openPostgresStore(url, poolSize));
  return client;
}

const globalForDb = globalThis as unknown as { opledgerDb?: Db };

/** The process-wide client. */
export function db(): Db {
  if (globalForDb.opledgerDb) return globalForDb.opledgerDb;
  const { DATABASE_URL, DATABASE_POOL_SIZE } = env();
  const client = createDb(DATABASE_URL, DATABASE_POOL_SIZE);
  globalForDb.opledgerDb = client;
  return client;
}

export function isSqlite(url: string): boolean {
  return url.startsWith("file:");
}
