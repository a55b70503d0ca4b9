// The two migrations folders stay twins, and our checksums are the ones `prisma migrate deploy` writes.
import Database from "better-sqlite3";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checksumOf, MigrationError, readMigrationsFolder } from "./migrations-folder";
import { POSTGRES_MIGRATIONS_DIR } from "./postgres";

const SQLITE_MIGRATIONS_DIR = path.join("prisma", "migrations");
const sqliteNames = (): string[] =>
  fs
    .readdirSync(SQLITE_MIGRATIONS_DIR, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();

let scratch: string | null = null;
afterEach(() => {
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  scratch = null;
});

describe("the migrations folders", () => {
  it("have the same migration names for SQLite and PostgreSQL, so one history describes both engines", () => {
    const postgres = readMigrationsFolder(POSTGRES_MIGRATIONS_DIR, "postgresql").map((m) => m.name);
    expect(postgres).toEqual(sqliteNames());
    expect(postgres.length).toBeGreaterThan(1);
  });

  it("record the same checksums as prisma migrate deploy (read back from the SQLite test template it migrated)", () => {
    const template = process.env.OPLEDGER_TEST_TEMPLATE_DB;
    if (!template) throw new Error("OPLEDGER_TEST_TEMPLATE_DB is not set");
    const db = new Database(template, { readonly: true });
    try {
      const recorded = db
        .prepare("SELECT migration_name, checksum FROM _prisma_migrations ORDER BY migration_name")
        .all();
      const ours = sqliteNames().map((name) => {
        const script = fs.readFileSync(path.join(SQLITE_MIGRATIONS_DIR, name, "migration.sql"), "utf8");
        return { migration_name: name, checksum: checksumOf(script) };
      });
      expect(recorded).toEqual(ours);
    } finally {
      db.close();
    }
  });

  it("refuses a folder whose lock file names another provider", () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "opledger-migrations-"));
    fs.writeFileSync(path.join(scratch, "migration_lock.toml"), 'provider = "sqlite"\n');
    expect(() => readMigrationsFolder(scratch ?? "", "postgresql")).toThrow(MigrationError);
  });

  it("refuses a migration folder without migration.sql", () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "opledger-migrations-"));
    fs.writeFileSync(path.join(scratch, "migration_lock.toml"), 'provider = "postgresql"\n');
    fs.mkdirSync(path.join(scratch, "20260101000000_empty"));
    expect(() => readMigrationsFolder(scratch ?? "", "postgresql")).toThrow(
      /20260101000000_empty has no migration.sql/,
    );
  });
});
