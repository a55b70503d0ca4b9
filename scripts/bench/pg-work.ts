// What a PostgreSQL cluster did for some calls, from its own statistics: write transactions (transaction ids handed
// out), all committed transactions of one database, read-only ones included (pg_stat_database), and the WAL's records,
// writes and flushes (pg_stat_wal).
import { Client } from "pg";

/**
 * A backend that reported its statistics less than a second ago holds the next ones until it has been idle for 10 s
 * (PostgreSQL 15's PGSTAT_IDLE_INTERVAL): eleven seconds of quiet and every backend has reported.
 */
const STATS_SETTLE_MS = 11_000;

/** Counters of the cluster at `url` (its database's commits included); read after the statistics settle. */
export async function pgCounters(url: string): Promise<Record<string, number>> {
  await new Promise((resolve) => setTimeout(resolve, STATS_SETTLE_MS));
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<Record<string, string>>(
      `SELECT txid_snapshot_xmax(txid_current_snapshot()) AS "writeTransactions",
              (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()) AS "transactions",
              wal_records AS "walRecords", wal_bytes AS "walBytes", wal_write AS "walWrites", wal_sync AS "walSyncs"
         FROM pg_stat_wal`,
    );
    return Object.fromEntries(Object.entries(rows[0] ?? {}).map(([name, value]) => [name, Number(value)]));
  } finally {
    await client.end();
  }
}
