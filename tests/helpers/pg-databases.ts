// PostgreSQL databases for tests: one migrated template per run, and a copy of it per test (CREATE DATABASE ...
// TEMPLATE).
import { randomBytes } from "node:crypto";
import pg from "pg";

const NAME = /^[a-z0-9_]{1,63}$/;

function quoted(name: string): string {
  if (!NAME.test(name))
    throw new Error(`Refusing the database name ${JSON.stringify(name)}: only [a-z0-9_] are generated here.`);
  return `"${name}"`;
}

/** The same server and credentials as `baseUrl`, another database. */
export function databaseUrl(baseUrl: string, name: string): string {
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A name no other run on the same cluster uses: test runs of several checkouts may share one cluster. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString("hex")}`;
}

async function withAdmin<T>(baseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: baseUrl, application_name: "opledger-tests" });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Copying a template refuses while anyone is connected to it; that only lasts as long as a sibling's copy takes. */
function templateBusy(error: unknown): boolean {
  return (error as { code?: unknown }).code === "55006";
}

export async function createDatabase(baseUrl: string, name: string, template?: string): Promise<void> {
  const sql = `CREATE DATABASE ${quoted(name)}${template ? ` TEMPLATE ${quoted(template)}` : ""}`;
  await withAdmin(baseUrl, async (client) => {
    for (let tryNumber = 1; ; tryNumber++) {
      try {
        await client.query(sql);
        return;
      } catch (error) {
        if (!templateBusy(error) || tryNumber >= 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  });
}

export async function dropDatabase(baseUrl: string, name: string): Promise<void> {
  await withAdmin(baseUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${quoted(name)} WITH (FORCE)`));
}

/** Drops what a run left behind (a crashed worker never calls close). */
export async function dropDatabasesStartingWith(baseUrl: string, prefix: string): Promise<string[]> {
  return withAdmin(baseUrl, async (client) => {
    const { rows } = await client.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE starts_with(datname, $1)",
      [prefix],
    );
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS ${quoted(datname)} WITH (FORCE)`);
    return rows.map((row) => row.datname);
  });
}

/** A new database name inside this run's namespace (`<run>_*`), so the global teardown drops it if a test does not. */
export function runDatabaseName(): string {
  const template = process.env.OPLEDGER_TEST_PG_TEMPLATE;
  if (!template)
    throw new Error("OPLEDGER_TEST_PG_TEMPLATE is not set: is tests/setup/db-template.ts the globalSetup?");
  return uniqueName(template.replace(/_template$/, ""));
}

/** The server the PostgreSQL run uses, or null for the SQLite run (an empty value counts as unset). */
export function testPostgresUrl(): string | null {
  const url = process.env.OPLEDGER_TEST_PG_URL?.trim();
  return url ? url : null;
}
