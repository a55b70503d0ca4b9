// SQLite durability settings: WAL, synchronous=FULL (a DISPATCHED record must survive power loss) and a busy timeout.
import type { Db } from "./prisma";
import { SQLITE_BUSY_TIMEOUT_MS } from "./prisma";

export interface SqliteSettings {
  journalMode: string;
  synchronous: string;
  busyTimeoutMs: number;
}

const SYNCHRONOUS_NAMES = ["OFF", "NORMAL", "FULL", "EXTRA"] as const;

async function pragma(client: Db, statement: string): Promise<Record<string, unknown>> {
  const rows = await client.$queryRawUnsafe<Record<string, unknown>[]>(`PRAGMA ${statement}`);
  return rows[0] ?? {};
}

/** Sets and then reads back the settings; throws if SQLite did not take them. */
export async function applySqliteSettings(client: Db): Promise<SqliteSettings> {
  await pragma(client, "journal_mode = WAL");
  await pragma(client, "synchronous = FULL");
  await pragma(client, `busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  const journalMode = String(Object.values(await pragma(client, "journal_mode"))[0]).toUpperCase();
  const syncValue = Number(Object.values(await pragma(client, "synchronous"))[0]);
  const busyTimeoutMs = Number(Object.values(await pragma(client, "busy_timeout"))[0]);
  const synchronous = SYNCHRONOUS_NAMES[syncValue] ?? String(syncValue);
  if (journalMode !== "WAL" || synchronous !== "FULL" || busyTimeoutMs !== SQLITE_BUSY_TIMEOUT_MS) {
    throw new Error(
      `SQLite refused the durability settings (journal_mode=${journalMode}, synchronous=${synchronous}, busy_timeout=${busyTimeoutMs}).`,
    );
  }
  return { journalMode, synchronous, busyTimeoutMs };
}
