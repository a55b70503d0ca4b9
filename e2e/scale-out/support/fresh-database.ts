// A fresh, empty database for a spawned server, on the e2e run's engine: a new SQLite file under .data/, or a new
// database on the e2e PostgreSQL server.
import fs from "node:fs";
import path from "node:path";
import { Client } from "pg";
import { E2E_DB_URL } from "../../fixtures/api";
import { REPO_ROOT } from "../../fixtures/test-env";

export const E2E_ENGINE: "sqlite" | "postgresql" = E2E_DB_URL.startsWith("file:") ? "sqlite" : "postgresql";

export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * Runs one statement on the e2e PostgreSQL server's maintenance database (CREATE/DROP DATABASE cannot run in the
 * target).
 */
async function onServer(sql: string): Promise<void> {
  const url = new URL(E2E_DB_URL);
  url.pathname = "/postgres";
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * `name` must be unique per spec and port (it names the file or the database); anything left by an earlier run is
 * removed first.
 */
export async function freshDatabase(name: string): Promise<FreshDatabase> {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`database name ${name} must be lower-case letters, digits and _`);
  if (E2E_ENGINE === "sqlite") {
    const dir = path.join(REPO_ROOT, ".data", `e2e-${name}`);
    fs.rmSync(dir, { recursive: true, force: true });
    return {
      url: `file:${path.join(dir, "opledger.db")}`,
      drop: () => Promise.resolve(fs.rmSync(dir, { recursive: true, force: true })),
    };
  }
  const database = `pg_e2e_${name}`;
  await onServer(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  await onServer(`CREATE DATABASE "${database}"`);
  const url = new URL(E2E_DB_URL);
  url.pathname = `/${database}`;
  return {
    url: url.toString(),
    drop: () => onServer(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`),
  };
}
