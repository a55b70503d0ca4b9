// Where the demo world keeps its files (the providers' effects, the desk's tickets, the upstreams file): beside a
// SQLite database, or in the default data folder with PostgreSQL.
import path from "node:path";
import { defaultDataDir, sqliteFilePath } from "@/lib/platform/config/database-url";

export function demoDataDir(databaseUrl: string): string {
  const file = sqliteFilePath(databaseUrl);
  return file ? path.dirname(path.resolve(file)) : defaultDataDir();
}
