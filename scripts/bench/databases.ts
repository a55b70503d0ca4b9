// Fresh, migrated databases for one benchmark: a SQLite file in the module's scratch directory, or a PostgreSQL
// database of its own.
import path from "node:path";
import { Client } from "pg";
import { openLedger, type Ledger } from "@/lib/ledger/ledger";
import { putContract } from "@/lib/ledger/contracts/contract-versions";
import { applySqliteSettings } from "@/lib/platform/db/sqlite-settings";
import { prepareDatabase } from "../prepare-database";
import { BENCH_ACTOR } from "./ledger-lifecycle";
import { BENCH_CONTRACT, BENCH_TOOL } from "./workload";

/** A migrated SQLite file; returns its DATABASE_URL. */
export function freshSqlite(workDir: string, name: string): string {
  const url = `file:${path.join(workDir, `${name}.db`)}`;
  prepareDatabase(url);
  return url;
}

/**
 * A ledger on the URL with the server's settings and the benchmark's contract in place, and that contract's version.
 */
export async function openBenchLedger(
  url: string,
  poolSize?: number,
): Promise<{ ledger: Ledger; contractVersion: number }> {
  const ledger = openLedger(url, { poolSize });
  if (url.startsWith("file:")) await applySqliteSettings(ledger.db);
  const { contract } = await putContract(ledger, BENCH_TOOL, BENCH_CONTRACT, BENCH_ACTOR, new Date());
  return { ledger, contractVersion: contract.version };
}

/** The URL of database `name` on the same PostgreSQL server as `serverUrl`. */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Creates database `name` (dropping a leftover of an interrupted run) and returns a function that drops it. */
export async function createPgDatabase(serverUrl: string, name: string): Promise<() => Promise<void>> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unsafe database name ${name}`);
  const admin = new Client({ connectionString: databaseUrl(serverUrl, "postgres") });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return async () => {
    const dropper = new Client({ connectionString: databaseUrl(serverUrl, "postgres") });
    await dropper.connect();
    try {
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await dropper.end();
    }
  };
}
