// The SQLite data directory is created 0700 and the database, its WAL and shared memory end up 0600, whether they are
// created under opledger's umask or tightened afterwards.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensureSqliteDirectory, OWNER_ONLY_UMASK, restrictSqliteFiles, restrictToOwner } from "./database-url";

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

let root: string;
let savedUmask: number;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "opledger-modes-"));
  savedUmask = process.umask();
});

afterEach(() => {
  process.umask(savedUmask);
  fs.rmSync(root, { recursive: true, force: true });
});

/**
 * Opens the database in WAL mode and writes, so SQLite creates the -wal and -shm files beside it, and returns their
 * modes and the database's while it is open (closing the last connection removes them).
 */
function modesInWalMode(file: string): Record<string, number> {
  const db = new Database(file);
  try {
    db.pragma("journal_mode = WAL");
    db.exec("CREATE TABLE IF NOT EXISTS t (a); INSERT INTO t VALUES (1);");
    return { db: modeOf(file), wal: modeOf(`${file}-wal`), shm: modeOf(`${file}-shm`) };
  } finally {
    db.close();
  }
}

describe("ensureSqliteDirectory", () => {
  it("creates every missing directory 0700, even under a permissive umask", () => {
    process.umask(0o022);
    const file = path.join(root, "a", "b", "opledger.db");
    ensureSqliteDirectory(`file:${file}`);
    expect(modeOf(path.join(root, "a"))).toBe(0o700);
    expect(modeOf(path.join(root, "a", "b"))).toBe(0o700);
  });

  it("leaves a directory that already exists as the operator made it", () => {
    fs.chmodSync(root, 0o755);
    ensureSqliteDirectory(`file:${path.join(root, "opledger.db")}`);
    expect(modeOf(root)).toBe(0o755);
  });
});

describe("files created under opledger's umask", () => {
  it("are 0600: the database, its WAL and its shared memory", () => {
    process.umask(OWNER_ONLY_UMASK);
    const file = path.join(root, "data", "opledger.db");
    ensureSqliteDirectory(`file:${file}`);
    expect(modesInWalMode(file)).toEqual({ db: 0o600, wal: 0o600, shm: 0o600 });
    expect(modeOf(path.dirname(file))).toBe(0o700);
  });
});

describe("restrictSqliteFiles", () => {
  it("tightens a database left 0644 by an older version, and SQLite then keeps its WAL and shared memory 0600", () => {
    process.umask(0o022);
    const file = path.join(root, "opledger.db");
    expect(modesInWalMode(file)).toEqual({ db: 0o644, wal: 0o644, shm: 0o644 });
    // Left behind as a crash leaves them, readable by everyone.
    fs.writeFileSync(`${file}-wal`, "", { mode: 0o644 });
    fs.writeFileSync(`${file}-shm`, "", { mode: 0o644 });
    const changed = restrictSqliteFiles(`file:${file}`);
    expect(changed.sort()).toEqual([file, `${file}-shm`, `${file}-wal`].sort());
    for (const f of changed) expect(modeOf(f), f).toBe(0o600);
    fs.rmSync(`${file}-wal`);
    fs.rmSync(`${file}-shm`);
    // New -wal and -shm files take the database's mode, whatever the umask of the process that opens it.
    expect(modesInWalMode(file)).toEqual({ db: 0o600, wal: 0o600, shm: 0o600 });
    expect(restrictSqliteFiles(`file:${file}`)).toEqual([]);
  });

  it("never loosens a stricter mode, and ignores files that are not there and other engines", () => {
    const file = path.join(root, "readonly.db");
    fs.writeFileSync(file, "");
    fs.chmodSync(file, 0o444);
    expect(restrictToOwner(file)).toBe(true);
    expect(modeOf(file)).toBe(0o400);
    expect(restrictToOwner(path.join(root, "missing.db"))).toBe(false);
    expect(restrictSqliteFiles("postgresql://localhost/opledger")).toEqual([]);
    expect(restrictSqliteFiles("file::memory:")).toEqual([]);
  });
});
