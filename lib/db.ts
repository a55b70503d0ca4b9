// The one Prisma client: picks the driver adapter from DATABASE_URL and is reused across hot reloads.
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { ensureSqliteDirectory } from "@/lib/config/database-url";
import { env } from "@/lib/config/env";

export type Db = PrismaClient;

/** How long a SQLite writer waits for a lock before failing with SQLITE_BUSY. */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

export function createDb(url: string, poolSize = 10): Db {
  if (url.startsWith("file:")) {
    ensureSqliteDirectory(url);
    return new PrismaClient({ adapter: new PrismaBetterSQLite3({ url, timeout: SQLITE_BUSY_TIMEOUT_MS }) });
  }
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: poolSize }) });
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
