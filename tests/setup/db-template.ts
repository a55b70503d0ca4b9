// Vitest global setup: migrates one template database per run (SQLite file, and PostgreSQL when OPLEDGER_TEST_PG_URL is
// set); each test copies it.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { migratePostgres } from "../../lib/platform/migrate/postgres";
import {
  createDatabase,
  databaseUrl,
  dropDatabasesStartingWith,
  testPostgresUrl,
  uniqueName,
} from "../helpers/pg-databases";

function migrateSqliteTemplate(template: string): void {
  const result = spawnSync("npx", ["prisma", "migrate", "deploy"], {
    env: { ...process.env, DATABASE_URL: `file:${template}` },
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`migrating the test template failed:\n${result.stdout}\n${result.stderr}`);
}

/** Migrates `<run>_template` on the test server; tests copy it as `<run>_<random>` and the teardown drops `<run>_*`. */
async function migratePostgresTemplate(serverUrl: string): Promise<string> {
  const run = uniqueName("opledger_t");
  const template = `${run}_template`;
  try {
    await createDatabase(serverUrl, template);
  } catch (error) {
    throw new Error(
      `OPLEDGER_TEST_PG_URL=${serverUrl} does not take a new database (${error instanceof Error ? error.message : String(error)}); ` +
        "start a throwaway server with `bash scripts/pg-cluster.sh start`.",
    );
  }
  await migratePostgres(databaseUrl(serverUrl, template));
  process.env.OPLEDGER_TEST_PG_TEMPLATE = template;
  return run;
}

export default async function setup(): Promise<() => Promise<void>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "opledger-test-"));
  const template = path.join(dir, "template.db");
  migrateSqliteTemplate(template);
  process.env.OPLEDGER_TEST_TEMPLATE_DB = template;
  const serverUrl = testPostgresUrl();
  const run = serverUrl ? await migratePostgresTemplate(serverUrl) : null;
  return async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    if (serverUrl && run) await dropDatabasesStartingWith(serverUrl, `${run}_`);
  };
}
