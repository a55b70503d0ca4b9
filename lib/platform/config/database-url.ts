// Where the embedded SQLite database lives when DATABASE_URL is not set (a data directory outside the source tree), and
// how its files are kept readable by their owner only.
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

/** A directory the product creates for its data: only its owner may list or enter it. */
export const DATA_DIRECTORY_MODE = 0o700;
/** A file the product writes (the database, its WAL and shared memory, the generated session secret). */
export const DATA_FILE_MODE = 0o600;
/** The umask of every opledger process that may create data files: new files 0600, new directories 0700. */
export const OWNER_ONLY_UMASK = 0o077;

/**
 * SQLite creates the file but not its directory. One level at a time rather than `recursive: true`, which never
 * returns on some special file systems (Node 20 loops on ENOENT under /proc). Directories made here are 0700; a
 * directory that already exists is the operator's and keeps its mode.
 */
export function ensureSqliteDirectory(url: string): void {
  const file = sqliteFilePath(url);
  if (!file || file === ":memory:") return;
  const missing: string[] = [];
  // The database lives wherever the operator says, never in the project: the ignore comment keeps Turbopack's output
  // tracer from reading this cwd-relative path as a file of the project (which would ship the whole project).
  const directory = path.dirname(path.resolve(/*turbopackIgnore: true*/ file));
  for (let dir = directory; !fs.existsSync(dir); dir = path.dirname(dir)) missing.unshift(dir);
  // mkdir's mode passes through the umask, which can only take bits away: 0700 or stricter.
  for (const dir of missing) fs.mkdirSync(dir, { mode: DATA_DIRECTORY_MODE });
}

/**
 * Takes group and other permissions off a file the product wrote, if it exists and has any; returns whether it
 * changed something. Never loosens a stricter mode.
 */
export function restrictToOwner(file: string): boolean {
  let mode: number;
  try {
    mode = fs.statSync(file).mode & 0o777;
  } catch {
    return false;
  }
  if ((mode & 0o077) === 0) return false;
  fs.chmodSync(file, mode & DATA_FILE_MODE);
  return true;
}

/**
 * A SQLite database and its companions (-wal, -shm, -journal) made readable by their owner only: files created by an
 * older version or by a tool run without opledger's umask (for example `prisma migrate` from a shell). SQLite gives
 * the -wal and -shm files it creates later the database file's own mode, so a 0600 database keeps them 0600. Returns
 * the files whose mode changed.
 */
export function restrictSqliteFiles(url: string): string[] {
  const file = sqliteFilePath(url);
  if (!file || file === ":memory:") return [];
  const base = path.resolve(/*turbopackIgnore: true*/ file);
  return [base, `${base}-wal`, `${base}-shm`, `${base}-journal`].filter(restrictToOwner);
}
