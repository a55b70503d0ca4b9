// `npx tsx scripts/migrate-postgres.ts`: applies prisma/postgresql/migrations to DATABASE_URL (what `prisma migrate
// deploy` does, without its engines).
import path from "node:path";
import { MigrationError } from "../lib/platform/migrate/migrations-folder";
import { migratePostgres, POSTGRES_MIGRATIONS_DIR } from "../lib/platform/migrate/postgres";

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL ?? "";
  if (!/^postgres(ql)?:\/\//.test(url)) throw new MigrationError("DATABASE_URL must be a postgresql:// URL.");
  const report = await migratePostgres(url, {
    migrationsDir: path.join(__dirname, "..", POSTGRES_MIGRATIONS_DIR),
    log: (line) => console.log(`opledger: ${line}`),
  });
  if (report.unknown.length > 0) {
    console.warn(
      `opledger: the database has migrations this build does not know (${report.unknown.join(", ")}); is an older build starting?`,
    );
  }
  console.log(
    report.applied.length > 0
      ? `opledger: applied ${report.applied.length} migration(s); ${report.alreadyApplied} were already applied`
      : `opledger: no pending migrations (${report.alreadyApplied} applied)`,
  );
}

main().catch((error: unknown) => {
  console.error(
    error instanceof MigrationError
      ? error.message
      : error instanceof Error
        ? (error.stack ?? error.message)
        : String(error),
  );
  process.exit(1);
});
