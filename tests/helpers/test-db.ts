// A fresh, migrated database for one test: a copy of the run's template, SQLite by default, PostgreSQL when
// OPLEDGER_TEST_PG_URL is set.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Db, Engine } from "@/lib/platform/db/prisma";
import { openLedger, type Ledger } from "@/lib/ledger/ledger";
import { applySqliteSettings } from "@/lib/platform/db/sqlite-settings";
import { createDatabase, databaseUrl, dropDatabase, runDatabaseName, testPostgresUrl } from "./pg-databases";

export interface TestDb {
  ledger: Ledger;
  /** The ledger's Prisma client, for a test's own checks of what was written. */
  db: Db;
  engine: Engine;
  /** The SQLite file; null on PostgreSQL. */
  file: string | null;
  url: string;
  close: () => Promise<void>;
}

async function createSqliteTestDb(): Promise<TestDb> {
  const template = process.env.OPLEDGER_TEST_TEMPLATE_DB;
  if (!template)
    throw new Error("OPLEDGER_TEST_TEMPLATE_DB is not set: is tests/setup/db-template.ts the globalSetup?");
  const file = path.join(path.dirname(template), `${randomUUID()}.db`);
  fs.copyFileSync(template, file);
  const url = `file:${file}`;
  const ledger = openLedger(url);
  await applySqliteSettings(ledger.db);
  return {
    ledger,
    db: ledger.db,
    engine: "sqlite",
    file,
    url,
    close: async () => {
      await ledger.close();
      for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(`${file}${suffix}`, { force: true });
    },
  };
}

/**
 * The next test's database, copied while the current test runs: CREATE DATABASE is most of a PostgreSQL test's set-up
 * time. One left over when a file ends is dropped with the run's other databases by the global teardown.
 */
let prefetched: Promise<string> | null = null;

function copyTemplate(serverUrl: string, template: string): Promise<string> {
  const name = runDatabaseName();
  const created = createDatabase(serverUrl, name, template).then(() => name);
  // Reported to the test that takes it; never an unhandled rejection when no test does.
  created.catch(() => undefined);
  return created;
}

async function createPostgresTestDb(serverUrl: string): Promise<TestDb> {
  const template = process.env.OPLEDGER_TEST_PG_TEMPLATE;
  if (!template)
    throw new Error("OPLEDGER_TEST_PG_TEMPLATE is not set: is tests/setup/db-template.ts the globalSetup?");
  const name = await (prefetched ?? copyTemplate(serverUrl, template));
  prefetched = copyTemplate(serverUrl, template);
  const url = databaseUrl(serverUrl, name);
  const ledger = openLedger(url, { poolSize: 5 });
  return {
    ledger,
    db: ledger.db,
    engine: "postgresql",
    file: null,
    url,
    close: async () => {
      await ledger.close();
      await dropDatabase(serverUrl, name);
    },
  };
}

export async function createTestDb(): Promise<TestDb> {
  const serverUrl = testPostgresUrl();
  return serverUrl ? createPostgresTestDb(serverUrl) : createSqliteTestDb();
}
