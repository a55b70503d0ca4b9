// Holds a lock on a SQLite file from another process (a raw better-sqlite3 connection), for contention tests: the
// ledger's busy wait blocks its own event loop, so the holder must not share it.
import { spawn } from "node:child_process";
import { once } from "node:events";

/**
 * "read": a read transaction's snapshot; "write": the write lock; "checkpoint": a TRUNCATE checkpoint waiting up to
 * holdMs for older snapshots to end, holding the write lock meanwhile (WAL mode); "commit": one committed write (the
 * user_version in the header), at once.
 */
export type LockKind = "read" | "write" | "checkpoint" | "commit";

const HOLDER = `
const Database = require("better-sqlite3");
const [file, kind, holdMs] = process.argv.slice(1);
const db = new Database(file, { timeout: 0 });
const done = () => { db.close(); process.stdout.write("released\\n"); };
if (kind === "checkpoint" || kind === "commit") {
  process.stdout.write("held\\n");
  db.pragma("busy_timeout = " + holdMs);
  if (kind === "commit") db.pragma("user_version = " + (db.pragma("user_version", { simple: true }) + 1));
  else db.pragma("wal_checkpoint(TRUNCATE)");
  done();
} else {
  if (kind === "write") db.prepare("BEGIN IMMEDIATE").run();
  else { db.prepare("BEGIN").run(); db.prepare("SELECT count(*) FROM Operation").get(); }
  process.stdout.write("held\\n");
  let over = false;
  const finish = () => {
    if (over) return;
    over = true;
    clearTimeout(timer);
    process.stdin.destroy();
    db.prepare("ROLLBACK").run();
    done();
  };
  const timer = setTimeout(finish, Number(holdMs));
  process.stdin.on("data", finish);
}
`;

export interface LockHolder {
  /** Resolves when the other process gave the lock back and exited. */
  released: Promise<void>;
  /** Asks a "read" or "write" holder to give the lock back now, before `holdMs` is over. */
  release: () => void;
}

/**
 * Starts a process that takes the lock, holds it for `holdMs` by its own clock (or until `release()` for "read" and
 * "write"), then releases it; resolves once it is held.
 */
export async function holdSqliteLock(file: string, kind: LockKind, holdMs: number): Promise<LockHolder> {
  const child = spawn(process.execPath, ["-e", HOLDER, file, kind, String(holdMs)], {
    cwd: process.cwd(),
    stdio: ["pipe", "pipe", "pipe"],
  });
  // A release asked for after the holder let go by itself finds its stdin closed; that is not an error.
  child.stdin.on("error", () => undefined);
  let output = "";
  let errors = "";
  child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  const exited = once(child, "exit").then(([code]) => {
    if (code !== 0) throw new Error(`the lock holder failed (exit ${String(code)}): ${errors}`);
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("held")) resolve();
    });
    exited.then(() => reject(new Error(`the lock holder exited before holding the lock: ${errors}`)), reject);
  });
  return { released: exited, release: () => void child.stdin.end("release\n") };
}
