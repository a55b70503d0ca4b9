// Applies prisma/postgresql/migrations to PostgreSQL without Prisma's engines, with the same `_prisma_migrations`
// bookkeeping and lock.
import { randomUUID } from "node:crypto";
import path from "node:path";
import pg from "pg";
import { MigrationError, readMigrationsFolder, type LocalMigration } from "./migrations-folder";
import { planMigrations, type MigrationRow } from "./plan";

export const POSTGRES_MIGRATIONS_DIR = path.join("prisma", "postgresql", "migrations");

/**
 * The advisory lock key Prisma Migrate takes on PostgreSQL (prisma-engines, postgres flavour). Taking the same key
 * means
 * this migrator, other instances of it and a `prisma migrate deploy` run never touch the history at the same time.
 */
export const PRISMA_MIGRATE_LOCK_KEY = 72707369;

/**
 * The table exactly as Prisma's schema engine creates it on PostgreSQL, so either tool can continue the other's
 * history.
 */
const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
);`;

export interface MigrateOptions {
  /** Defaults to prisma/postgresql/migrations under the working directory. */
  migrationsDir?: string;
  /** How long to wait for another migrator to finish before giving up. */
  lockTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface MigrateReport {
  applied: string[];
  alreadyApplied: number;
  /** Recorded in the database but not in this build's folder. */
  unknown: string[];
}

async function takeLock(client: pg.Client, timeoutMs: number): Promise<void> {
  // lock_timeout bounds the wait for the advisory lock as for any heavyweight lock.
  await client.query(`SET lock_timeout = ${Math.max(1, Math.round(timeoutMs))}`);
  try {
    await client.query("SELECT pg_advisory_lock($1)", [PRISMA_MIGRATE_LOCK_KEY]);
  } catch (error) {
    if ((error as { code?: unknown }).code === "55P03") {
      throw new MigrationError(
        `Another migrator (this one or \`prisma migrate\`) held the migration lock for more than ${timeoutMs} ms; is it stuck?`,
      );
    }
    throw error;
  }
  await client.query("RESET lock_timeout");
}

/**
 * Creates the history table on an empty schema; refuses a schema that has tables but no history, as Prisma does
 * (P3005).
 */
async function historyRows(client: pg.Client): Promise<MigrationRow[]> {
  const exists = await client.query<{ present: boolean }>(
    "SELECT to_regclass(quote_ident(current_schema()) || '._prisma_migrations') IS NOT NULL AS present",
  );
  if (!exists.rows[0]?.present) {
    const tables = await client.query<{ count: string }>(
      "SELECT count(*) AS count FROM information_schema.tables WHERE table_schema = current_schema()",
    );
    if (Number(tables.rows[0]?.count ?? 0) > 0) {
      throw new MigrationError(
        "The database schema is not empty and has no _prisma_migrations table; baseline it first (see docs/deployment.md).",
      );
    }
    await client.query(CREATE_MIGRATIONS_TABLE);
    return [];
  }
  const rows = await client.query<MigrationRow>(
    "SELECT migration_name, checksum, finished_at, rolled_back_at FROM _prisma_migrations ORDER BY started_at",
  );
  return rows.rows;
}

/**
 * One migration, all or nothing: its script and its history row commit together, so a failure leaves neither the
 * half-applied schema nor the "failed" row that `prisma migrate deploy` would leave behind; the next start retries it.
 */
async function applyMigration(client: pg.Client, migration: LocalMigration): Promise<void> {
  const id = randomUUID();
  await client.query("BEGIN");
  try {
    await client.query(
      "INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, applied_steps_count) VALUES " +
        "($1, $2, $3, clock_timestamp(), 0)",
      [id, migration.checksum, migration.name],
    );
    // No parameters: the simple query protocol runs the whole multi-statement script.
    await client.query(migration.script);
    await client.query(
      "UPDATE _prisma_migrations SET finished_at = clock_timestamp(), applied_steps_count = 1 WHERE id = $1",
      [id],
    );
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw new MigrationError(
      `The migration ${migration.name} failed and was rolled back: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** Applies every pending migration in order; safe to call from several instances at once. */
export async function migratePostgres(url: string, options: MigrateOptions = {}): Promise<MigrateReport> {
  const log = options.log ?? (() => undefined);
  const local = readMigrationsFolder(options.migrationsDir ?? path.resolve(POSTGRES_MIGRATIONS_DIR), "postgresql");
  const client = new pg.Client({ connectionString: url, application_name: "opledger-migrate" });
  await client.connect();
  try {
    await takeLock(client, options.lockTimeoutMs ?? 120_000);
    try {
      const plan = planMigrations(local, await historyRows(client));
      for (const migration of plan.pending) {
        const started = Date.now();
        await applyMigration(client, migration);
        log(`applied ${migration.name} in ${Date.now() - started} ms`);
      }
      return { applied: plan.pending.map((m) => m.name), alreadyApplied: plan.applied.length, unknown: plan.unknown };
    } finally {
      // Closing the session releases the lock anyway; an unlock failure must not hide the real error.
      await client.query("SELECT pg_advisory_unlock($1)", [PRISMA_MIGRATE_LOCK_KEY]).catch(() => undefined);
    }
  } finally {
    await client.end();
  }
}
