// The PostgreSQL migrator on a real server: Prisma's bookkeeping, one apply under concurrent starts, all-or-nothing,
// refusals.
import Database from "better-sqlite3";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createDatabase,
  databaseUrl,
  dropDatabase,
  runDatabaseName,
  testPostgresUrl,
} from "@/tests/helpers/pg-databases";
import { MigrationError, readMigrationsFolder } from "./migrations-folder";
import { migratePostgres, POSTGRES_MIGRATIONS_DIR } from "./postgres";

/** Every migration in the real folder, in order: the history a fresh database ends up with. */
const ALL = readMigrationsFolder(POSTGRES_MIGRATIONS_DIR, "postgresql").map((m) => m.name);

const serverUrl = testPostgresUrl();
let name: string;
let url: string;
let scratch: string | null = null;

beforeEach(async () => {
  if (!serverUrl) return;
  name = runDatabaseName();
  await createDatabase(serverUrl, name);
  url = databaseUrl(serverUrl, name);
});
afterEach(async () => {
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  scratch = null;
  if (serverUrl) await dropDatabase(serverUrl, name);
});

async function query<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** A copy of the real folder to tamper with. */
function copyOfMigrations(): string {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "opledger-pg-migrations-"));
  fs.cpSync(POSTGRES_MIGRATIONS_DIR, scratch, { recursive: true });
  return scratch;
}

function addMigration(dir: string, folder: string, script: string): void {
  fs.mkdirSync(path.join(dir, folder));
  fs.writeFileSync(path.join(dir, folder, "migration.sql"), script);
}

describe.skipIf(!serverUrl)("migratePostgres", () => {
  it("applies every migration once, recording them in _prisma_migrations exactly as Prisma does", async () => {
    const first = await migratePostgres(url);
    expect(first.applied).toEqual(ALL);
    expect(await migratePostgres(url)).toEqual({ applied: [], alreadyApplied: ALL.length, unknown: [] });

    const columns = await query<{ column_name: string; data_type: string; is_nullable: string }>(
      `SELECT column_name, data_type, is_nullable FROM information_schema.columns
       WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
    );
    expect(columns.map((c) => `${c.column_name} ${c.data_type} ${c.is_nullable}`)).toEqual([
      "id character varying NO",
      "checksum character varying NO",
      "finished_at timestamp with time zone YES",
      "migration_name character varying NO",
      "logs text YES",
      "rolled_back_at timestamp with time zone YES",
      "started_at timestamp with time zone NO",
      "applied_steps_count integer NO",
    ]);
    const rows = await query<{
      id: string;
      checksum: string;
      migration_name: string;
      done: boolean;
      applied_steps_count: number;
    }>(
      `SELECT id, checksum, migration_name, finished_at >= started_at AND rolled_back_at IS NULL AND logs IS NULL AS done,
              applied_steps_count FROM _prisma_migrations ORDER BY migration_name`,
    );
    expect(rows).toHaveLength(ALL.length);
    for (const row of rows) {
      expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(row).toMatchObject({ done: true, applied_steps_count: 1 });
    }
  });

  it("is read by Prisma's own CLI as an up-to-date history (prisma migrate status)", async () => {
    await migratePostgres(url);
    const status = spawnSync("npx", ["prisma", "migrate", "status", "--config", "prisma/postgresql/prisma.config.ts"], {
      env: { ...process.env, DATABASE_URL: url },
      encoding: "utf8",
    });
    expect(`${status.stdout}${status.stderr}`).toContain("Database schema is up to date!");
    expect(status.status).toBe(0);
  }, 60_000);

  it("applies each migration once when several instances start together", async () => {
    const reports = await Promise.all([migratePostgres(url), migratePostgres(url), migratePostgres(url)]);
    expect(reports.flatMap((r) => r.applied).sort()).toEqual(ALL);
    const [{ count }] = (await query<{ count: string }>("SELECT count(*) AS count FROM _prisma_migrations")) as [
      { count: string },
    ];
    expect(Number(count)).toBe(ALL.length);
  });

  it("rolls a failing migration back whole, leaving no row and no half-made table, and applies it once fixed", async () => {
    const dir = copyOfMigrations();
    addMigration(dir, "20991231000000_broken", 'CREATE TABLE "Half" (id TEXT);\nSELECT no_such_function();\n');
    await expect(migratePostgres(url, { migrationsDir: dir })).rejects.toThrow(
      /20991231000000_broken failed and was rolled back/,
    );
    expect(await query("SELECT to_regclass('\"Half\"') AS t")).toEqual([{ t: null }]);
    expect(await query("SELECT migration_name FROM _prisma_migrations WHERE migration_name LIKE '%broken'")).toEqual(
      [],
    );

    fs.writeFileSync(path.join(dir, "20991231000000_broken", "migration.sql"), 'CREATE TABLE "Half" (id TEXT);\n');
    expect((await migratePostgres(url, { migrationsDir: dir })).applied).toEqual(["20991231000000_broken"]);
  });

  it("refuses to go on when an applied migration was edited", async () => {
    const dir = copyOfMigrations();
    await migratePostgres(url, { migrationsDir: dir });
    fs.appendFileSync(path.join(dir, "20261130120000_audit_append_only", "migration.sql"), "-- a later edit\n");
    await expect(migratePostgres(url, { migrationsDir: dir })).rejects.toThrow(
      /20261130120000_audit_append_only was modified after it was applied/,
    );
  });

  it("refuses a database whose schema has tables but no migration history (it needs a baseline)", async () => {
    await query('CREATE TABLE "Stranger" (id TEXT)');
    await expect(migratePostgres(url)).rejects.toThrow(MigrationError);
    expect(await query("SELECT to_regclass('_prisma_migrations') AS t")).toEqual([{ t: null }]);
  });

  it("refuses to continue after a half-applied migration left by prisma migrate deploy", async () => {
    await migratePostgres(url);
    await query(
      `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, applied_steps_count, logs)
       VALUES ('00000000-0000-4000-8000-000000000000', '${"0".repeat(64)}', '20261202000000_failed', now(), 0, 'error')`,
    );
    await expect(migratePostgres(url)).rejects.toThrow(/20261202000000_failed failed earlier/);
  });

  it("builds the same tables, columns, nullability and indexes as the SQLite migrations (one model, two histories)", async () => {
    await migratePostgres(url);
    const postgres = await query<{ line: string }>(
      `SELECT table_name || '.' || column_name || CASE WHEN is_nullable = 'NO' THEN ' required' ELSE '' END AS line
         FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'
       UNION ALL
       SELECT tablename || ' index ' || indexname FROM pg_indexes
         WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' AND indexname NOT LIKE '%\\_pkey'`,
    );
    const template = process.env.OPLEDGER_TEST_TEMPLATE_DB ?? "";
    const sqlite = new Database(template, { readonly: true });
    try {
      const sqliteLines = sqlite
        .prepare(
          `SELECT m.name || '.' || c.name || CASE WHEN c."notnull" = 1 OR c.pk = 1 THEN ' required' ELSE '' END AS line
             FROM sqlite_master m JOIN pragma_table_info(m.name) c
             WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite%' AND m.name <> '_prisma_migrations'
           UNION ALL
           SELECT tbl_name || ' index ' || name FROM sqlite_master
             WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%' AND tbl_name <> '_prisma_migrations'`,
        )
        .all() as { line: string }[];
      expect(postgres.map((r) => r.line).sort()).toEqual(sqliteLines.map((r) => r.line).sort());
    } finally {
      sqlite.close();
    }
  });

  it("waits for the migration lock and gives up after the timeout when another session keeps it", async () => {
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query("SELECT pg_advisory_lock(72707369)");
      await expect(migratePostgres(url, { lockTimeoutMs: 200 })).rejects.toThrow(
        /held the migration lock for more than 200 ms/,
      );
    } finally {
      await holder.end();
    }
    expect((await migratePostgres(url)).applied).toHaveLength(ALL.length);
  });
});
