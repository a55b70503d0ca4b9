// Decides what to apply from the migrations folder and the `_prisma_migrations` rows, by Prisma's rules, stricter on
// edits.
import { MigrationError, scriptMatchesChecksum, type LocalMigration } from "./migrations-folder";

/** The `_prisma_migrations` columns the decision needs. */
export interface MigrationRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

export interface MigrationPlan {
  /** Not applied yet, in folder order. */
  pending: LocalMigration[];
  /** Applied, and unchanged since. */
  applied: string[];
  /** Applied to the database but absent from the folder: the database is ahead of this build. */
  unknown: string[];
}

export function planMigrations(local: readonly LocalMigration[], rows: readonly MigrationRow[]): MigrationPlan {
  // A row that started and neither finished nor was rolled back is a failed `prisma migrate deploy` (Prisma's P3009).
  const failed = rows
    .filter((row) => row.finished_at === null && row.rolled_back_at === null)
    .map((row) => row.migration_name);
  if (failed.length > 0) {
    throw new MigrationError(
      `The migration ${failed.join(", ")} failed earlier and was left half-applied; repair the database, then mark it with ` +
        "`prisma migrate resolve --rolled-back NAME` or `--applied NAME` (or fix the row in _prisma_migrations) and start again.",
    );
  }
  const done = rows.filter((row) => row.finished_at !== null && row.rolled_back_at === null);
  const plan: MigrationPlan = { pending: [], applied: [], unknown: [] };
  for (const migration of local) {
    const recorded = done.filter((row) => row.migration_name === migration.name);
    if (recorded.length === 0) {
      plan.pending.push(migration);
    } else if (recorded.some((row) => scriptMatchesChecksum(migration.script, row.checksum))) {
      plan.applied.push(migration.name);
    } else {
      // `prisma migrate deploy` does not check this (`migrate dev` does); a history that no longer says what ran is
      // broken, so stop.
      throw new MigrationError(
        `The migration ${migration.name} was modified after it was applied (checksum ${migration.checksum}, ` +
          `recorded ${recorded[0]?.checksum}); ` +
          "restore the original file and add a new migration for the change.",
      );
    }
  }
  const names = new Set(local.map((migration) => migration.name));
  plan.unknown = [...new Set(done.map((row) => row.migration_name).filter((name) => !names.has(name)))];
  return plan;
}
