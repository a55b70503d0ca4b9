// A fresh, migrated database for one test: a copy of the run's template, SQLite by default, PostgreSQL when OPLEDGER_TEST_PG_URL is set.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createDb, type Db, type Engine } from "@/lib/db";
import { applySqliteSettings } from "@/lib/sqlite-settings";
import { createDatabase, databaseUrl, dropDatabase, runDatabaseName, testPostgresUrl } from "./pg-databases";

export interface TestDb {
  client: Db;
  engine: Engine;
  /** The SQLite file; null on PostgreSQL. */
  file: string | null;
  url: string;
  close: () => Promise<void>;
}

async function createSqliteTestDb(): Promise<TestDb> {
  const template = process.env.OPLEDGER_TEST_TEMPLATE_DB;
  if (!template) throw new Error("OPLEDGER_TEST_TEMPLATE_DB is not set: is tests/setup/db-template.ts the globalSetup?");
  const file = path.join(path.dirname(template), `${randomUUID()}.db`);
  fs.copyFileSync(template, file);
  const url = `file:${file}`;
  const client = createDb(url);
  await applySqliteSettings(client);
  return {
    client,
    engine: "sqlite",
    file,
    url,
    close: async () => {
      await client.$disconnect();
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
  if (!template) throw new Error("OPLEDGER_TEST_PG_TEMPLATE is not set: is tests/setup/db-template.ts the globalSetup?");
  const name = await (prefetched ?? copyTemplate(serverUrl, template));
  prefetched = copyTemplate(serverUrl, template);
  const url = databaseUrl(serverUrl, name);
  const client = createDb(url, 5);
  return {
    client,
    engine: "postgresql",
    file: null,
    url,
    close: async () => {
      await client.$disconnect();
      await dropDatabase(serverUrl, name);
    },
  };
}

export async function createTestDb(): Promise<TestDb> {
  const serverUrl = testPostgresUrl();
  return serverUrl ? createPostgresTestDb(serverUrl) : createSqliteTestDb();
}
