// Prisma CLI configuration for the PostgreSQL schema: JS schema engine + pg adapter (generate, `migrate diff`, `migrate
// status`).
import path from "node:path";
import { defineConfig } from "prisma/config";
import { PrismaPg } from "@prisma/adapter-pg";

// The schema reads DATABASE_URL and must parse as PostgreSQL even where the app runs on SQLite (`prisma generate` in
// postinstall). `generate` never connects; `migrate diff` connects only to read the server version (the throwaway
// cluster of scripts/pg-cluster.sh will do); `migrate status` reads the history of DATABASE_URL.
const given = process.env.DATABASE_URL ?? "";
const url = /^postgres(ql)?:\/\//.test(given)
  ? given
  : (process.env.OPLEDGER_TEST_PG_URL ?? "postgresql://localhost:5432/opledger");
process.env.DATABASE_URL = url;

const shared = {
  schema: path.join(__dirname, "schema.prisma"),
  migrations: { path: path.join(__dirname, "migrations") },
};

// The JS engine cannot apply migrations to PostgreSQL (prisma/orm#27403): lib/platform/migrate does. On a machine that can
// download Prisma's engines, OPLEDGER_PRISMA_ENGINE=classic makes `prisma migrate deploy` apply the same folders
// with the Rust engine instead; both keep one `_prisma_migrations` history (docs/deployment.md).
export default process.env.OPLEDGER_PRISMA_ENGINE === "classic"
  ? defineConfig({ ...shared, engine: "classic", datasource: { url } })
  : defineConfig({
      ...shared,
      experimental: { adapter: true },
      engine: "js",
      // allowExitOnIdle: the CLI does not close the pool, which would otherwise hold the process for its 10 s idle
      // timeout.
      adapter: () => Promise.resolve(new PrismaPg({ connectionString: url, allowExitOnIdle: true })),
    });
