// Where the embedded SQLite database lives when DATABASE_URL is not set: a data directory outside the source tree.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export function defaultDataDir(): string {
  const xdg = process.env.XDG_DATA_HOME;
  return path.join(xdg && xdg.length > 0 ? xdg : path.join(os.homedir(), ".local", "share"), "opledger");
}

export function defaultDatabaseUrl(): string {
  return `file:${path.join(defaultDataDir(), "opledger.db")}`;
}

/** The file path of a `file:` URL, or null for any other engine. */
export function sqliteFilePath(url: string): string | null {
  if (!url.startsWith("file:")) return null;
  return url.slice("file:".length).split("?")[0] ?? null;
}

/**
 * SQLite creates the file but not its directory. One level at a time rather than `recursive: true`, which never
 * returns on some special file systems (Node 20 loops on ENOENT under /proc).
 */
export function ensureSqliteDirectory(url: string): void {
  const file = sqliteFilePath(url);
  if (!file || file === ":memory:") return;
  const missing: string[] = [];
  // The database lives wherever the operator says, never in the project: the ignore comment keeps Turbopack's output
  // tracer from reading this cwd-relative path as a file of the project (which would ship the whole project).
  const directory = path.dirname(path.resolve(/*turbopackIgnore: true*/ file));
  for (let dir = directory; !fs.existsSync(dir); dir = path.dirname(dir)) missing.unshift(dir);
  for (const dir of missing) fs.mkdirSync(dir);
}
