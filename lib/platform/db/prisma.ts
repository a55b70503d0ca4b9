// The Prisma client: picks the driver adapter from DATABASE_URL. It knows nothing of the ledger, which opens its own
// store beside it (lib/ledger/ledger.ts).
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@/lib/platform/generated/prisma/client";
import { PrismaClient as PostgresPrismaClient } from "@/lib/platform/generated/prisma-pg/client";
import { ensureSqliteDirectory } from "@/lib/platform/config/database-url";
import { guardSqliteConnection, Turns } from "./sqlite-connection-guard";

export type Db = PrismaClient;

export type Engine = "sqlite" | "postgresql";

/** How long a SQLite writer waits for a lock before failing with SQLITE_BUSY. */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

export interface DbOptions {
  /** PostgreSQL connections in Prisma's pool. */
  poolSize?: number;
  sqliteBusyTimeoutMs?: number;
  /** SQLite: the turns Prisma's connection takes with other connections of this process to the same file. */
  turns?: Turns;
}

export function createDb(url: string, options: DbOptions = {}): Db {
  const { poolSize = 10, sqliteBusyTimeoutMs = SQLITE_BUSY_TIMEOUT_MS, turns = new Turns() } = options;
  if (engineOf(url) === "sqlite") {
    ensureSqliteDirectory(url);
    const adapter = new PrismaBetterSQLite3({ url, timeout: sqliteBusyTimeoutMs });
    return new PrismaClient({ adapter: guardSqliteConnection(adapter, turns) });
  }
  // The one place the engines meet: both clients are generated from the same models (prisma/postgresql/schema.prisma
  // is derived from prisma/schema.prisma, and scripts/pg-schema.test.ts fails on drift), so they share one model API
  // and differ only in provider-specific extras the code does not use. Everything else is typed against the SQLite
  // client.
  const adapter = new PrismaPg({ connectionString: url, max: poolSize });
  return new PostgresPrismaClient({ adapter }) as unknown as Db;
}

export function engineOf(url: string): Engine {
  return isSqlite(url) ? "sqlite" : "postgresql";
}

export function isSqlite(url: string): boolean {
  return url.startsWith("file:");
}
