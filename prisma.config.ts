// Prisma CLI configuration: Rust-free (JS schema engine + driver adapter), so it works offline.
import path from "node:path";
import { defineConfig } from "prisma/config";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { defaultDatabaseUrl, ensureSqliteDirectory } from "./lib/platform/config/database-url";

// The schema reads DATABASE_URL; give the CLI the same default the app uses.
const url = (process.env.DATABASE_URL ??= defaultDatabaseUrl());

export default defineConfig({
  schema: path.join("prisma", "schema.prisma"),
  experimental: { adapter: true },
  engine: "js",
  adapter: () => {
    ensureSqliteDirectory(url);
    return Promise.resolve(new PrismaBetterSQLite3({ url }));
  },
});
