// Makes the database ready before the server starts: a writable data directory, every migration applied, and the
// SQLite files readable by their owner only.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import {
  ensureSqliteDirectory,
  OWNER_ONLY_UMASK,
  restrictSqliteFiles,
  sqliteFilePath,
} from "../lib/platform/config/database-url";
import { readMigrationsFolder } from "../lib/platform/migrate/migrations-folder";

function assertWritableDirectory(file: string): void {
  const dir = path.dirname(path.resolve(file));
  try {
    ensureSqliteDirectory(`file:${file}`);
    fs.accessSync(dir, fs.constants.W_OK);
  } catch {
    throw new Error(`opledger cannot start: the data directory ${dir} cannot be created or written to.`);
  }
}

/**
 * SQLite goes through `prisma migrate deploy`; PostgreSQL through lib/platform/migrate, because Prisma's JS schema engine cannot
 * apply there.
 */
function migrationCommand(databaseUrl: string): string[] {
  return sqliteFilePath(databaseUrl)
    ? ["prisma", "migrate", "deploy"]
    : ["tsx", path.join(__dirname, "migrate-postgres.ts")];
}

/**
 * Whether a SQLite database already has every migration. `prisma migrate deploy` takes an exclusive lock, which it can
 * never get while a server has the file open, so the CLI must not run it when there is nothing to apply.
 */
function sqliteUpToDate(file: string): boolean {
  if (!fs.existsSync(file)) return false;
  const local = readMigrationsFolder(path.join(process.cwd(), "prisma", "migrations"), "sqlite").map((m) => m.name);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const table = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'")
      .get();
    if (!table) return false;
    const applied = new Set(
      db
        .prepare(
          "SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL",
        )
        .all()
        .map((row) => (row as { migration_name: string }).migration_name),
    );
    return local.every((name) => applied.has(name));
  } finally {
    db.close();
  }
}

/**
 * From here on this process and its children (the migration, the server) create files 0600 and directories 0700:
 * the database, its -wal and -shm, the session secret, the demo's state. Called by `npm start` and `npm run serve`
 * before anything opens the database (after the build, whose output stays readable as usual).
 */
export function createFilesOwnerOnly(): void {
  process.umask(OWNER_ONLY_UMASK);
}

/** Files left looser by an older version or a migration run from a shell are tightened, and the operator told once. */
function restrictExistingFiles(databaseUrl: string): void {
  const changed = restrictSqliteFiles(databaseUrl);
  if (changed.length > 0) console.log(`opledger: made readable by their owner only (0600): ${changed.join(", ")}`);
}

export function prepareDatabase(databaseUrl: string): void {
  const file = sqliteFilePath(databaseUrl);
  if (file) {
    assertWritableDirectory(file);
    restrictExistingFiles(databaseUrl);
  }
  if (file && sqliteUpToDate(file)) {
    console.log(`opledger: database ready at ${file} (no pending migrations)`);
    return;
  }
  const result = spawnSync("npx", migrationCommand(databaseUrl), {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    encoding: "utf8",
  });
  if (result.status !== 0) {
    const detail = `${result.stdout}\n${result.stderr}`.trim().split("\n").slice(-3).join(" ");
    throw new Error(`opledger cannot start: migrating the database at ${redacted(databaseUrl)} failed (${detail}).`);
  }
  if (file) restrictExistingFiles(databaseUrl);
  console.log(`opledger: database ready at ${file ?? redacted(databaseUrl)}`);
}

function redacted(databaseUrl: string): string {
  return databaseUrl.replace(/\/\/[^@]*@/, "//***@");
}
