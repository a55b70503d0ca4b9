// A fresh, migrated SQLite database for one test: a copy of the run's template, with the product's durability settings.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createDb, type Db } from "@/lib/db";
import { applySqliteSettings } from "@/lib/sqlite-settings";

export interface TestDb {
  client: Db;
  file: string;
  url: string;
  close: () => Promise<void>;
}

export async function createTestDb(): Promise<TestDb> {
  const template = process.env.OPLEDGER_TEST_TEMPLATE_DB;
  if (!template) throw new Error("OPLEDGER_TEST_TEMPLATE_DB is not set: is tests/setup/db-template.ts the globalSetup?");
  const file = path.join(path.dirname(template), `${randomUUID()}.db`);
  fs.copyFileSync(template, file);
  const url = `file:${file}`;
  const client = createDb(url);
  await applySqliteSettings(client);
  return {
    client,
    file,
    url,
    close: async () => {
      await client.$disconnect();
      for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(`${file}${suffix}`, { force: true });
    },
  };
}
