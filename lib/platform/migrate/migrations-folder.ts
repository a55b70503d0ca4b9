// A Prisma migrations folder read the way Prisma reads it: ordered folder names, each script's sha256 checksum, the
// lock file's provider.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

export interface LocalMigration {
  /** The folder name, e.g. 20261130000000_init: also the `migration_name` in `_prisma_migrations`. */
  name: string;
  script: string;
  /** sha256 hex of migration.sql, as Prisma records it. */
  checksum: string;
}

export class MigrationError extends Error {
  override name = "MigrationError";
}

/** Prisma's checksum: sha256 over the script's bytes, lower-case hex. */
export function checksumOf(script: string): string {
  return createHash("sha256").update(script, "utf8").digest("hex");
}

/**
 * Prisma accepts a recorded checksum for the script as is or with its line endings converted either way,
 * so a checkout with CRLF line endings is not taken for an edited migration. Same rule here.
 */
export function scriptMatchesChecksum(script: string, checksum: string): boolean {
  const variants = [script, script.replace(/\r\n/g, "\n"), script.replace(/\r?\n/g, "\r\n")];
  return variants.some((variant) => checksumOf(variant) === checksum);
}

function lockFileProvider(dir: string): string | null {
  const lockFile = path.join(dir, "migration_lock.toml");
  if (!fs.existsSync(lockFile)) return null;
  return /^\s*provider\s*=\s*"([^"]+)"/m.exec(fs.readFileSync(lockFile, "utf8"))?.[1] ?? null;
}

/** The migrations of a folder in the order Prisma applies them (folder names sorted). */
export function readMigrationsFolder(dir: string, provider: string): LocalMigration[] {
  if (!fs.existsSync(dir)) throw new MigrationError(`The migrations folder ${dir} does not exist.`);
  const recorded = lockFileProvider(dir);
  if (recorded !== provider) {
    throw new MigrationError(
      `${path.join(dir, "migration_lock.toml")} names provider ${recorded ?? "(none)"}, not ${provider}.`,
    );
  }
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const file = path.join(dir, name, "migration.sql");
      if (!fs.existsSync(file)) throw new MigrationError(`The migration ${name} has no migration.sql.`);
      const script = fs.readFileSync(file, "utf8");
      return { name, script, checksum: checksumOf(script) };
    });
}
