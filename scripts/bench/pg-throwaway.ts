// A PostgreSQL 15 cluster of the benchmark's own on its own port: durable (initdb's defaults) or with fsync off, removed
// when the benchmark stops it.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "pg";

const PG_BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";
/** What the shared test cluster runs with (scripts/pg-cluster.sh): commits that never wait for the disk. */
const FSYNC_OFF_SETTINGS = ["fsync=off", "synchronous_commit=off", "full_page_writes=off"];

export interface ThrowawayCluster {
  /** The maintenance database's URL; benchmarks create their databases beside it (databases.ts). */
  url: string;
  /** The postmaster's process id (its backends and helpers are its children). */
  pid(): number;
  stop(): void;
}

/** Root cannot run initdb or postgres: as root, both run as user postgres on a directory it owns (as pg-cluster.sh). */
function asOwner(command: string, args: string[]): void {
  const [file, argv] =
    process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
  execFileSync(file, argv, { stdio: ["ignore", "ignore", "pipe"] });
}

function handOverToPostgres(dir: string): void {
  if (process.getuid?.() !== 0) return;
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }));
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }));
  fs.chownSync(dir, uid, gid);
}

/**
 * initdb and start a cluster on `port` in a fresh directory under the system's temporary directory (a disk here, so
 * fsync does reach it); `durable: false` adds the test cluster's fsync-off settings, nothing else differs.
 */
export function startThrowawayCluster(port: number, durable: boolean): ThrowawayCluster {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "opledger-bench-pg-"));
  handOverToPostgres(dir);
  const data = path.join(dir, "data");
  const log = path.join(dir, "postgres.log");
  const stop = (): void => {
    if (fs.existsSync(path.join(data, "postmaster.pid")))
      asOwner(path.join(PG_BIN, "pg_ctl"), ["-D", data, "-m", "fast", "-w", "stop"]);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    asOwner(path.join(PG_BIN, "initdb"), [
      "-D",
      data,
      "-A",
      "trust",
      "-U",
      "postgres",
      "-E",
      "UTF8",
      "--locale=C",
      "--no-instructions",
    ]);
    const settings = ["listen_addresses=127.0.0.1", ...(durable ? [] : FSYNC_OFF_SETTINGS)];
    const options = [`-p ${port}`, `-k ${dir}`, ...settings.map((s) => `-c ${s}`)].join(" ");
    asOwner(path.join(PG_BIN, "pg_ctl"), ["-D", data, "-l", log, "-w", "-t", "30", "-o", options, "start"]);
  } catch (error) {
    const serverLog = fs.existsSync(log) ? fs.readFileSync(log, "utf8").slice(-2000) : "";
    stop();
    throw new Error(`could not start a throwaway PostgreSQL on port ${port}: ${String(error)}\n${serverLog}`);
  }
  // postmaster.pid's first line is the postmaster's process id.
  const pid = (): number => Number(fs.readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0]);
  return { url: `postgresql://postgres@127.0.0.1:${port}/postgres`, pid, stop };
}

/**
 * What a result's reader needs to trust "same durability": the server's commit settings and how many unlogged tables
 * the database holds (a queue could trade durability for speed that way).
 */
export async function durabilityOf(url: string): Promise<Record<string, string | number>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const setting = async (name: string): Promise<string> =>
      String(
        (await client.query<{ setting: string }>("SELECT setting FROM pg_settings WHERE name = $1", [name])).rows[0]
          ?.setting,
      );
    const unlogged = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_class WHERE relpersistence = 'u'",
    );
    return {
      fsync: await setting("fsync"),
      synchronous_commit: await setting("synchronous_commit"),
      full_page_writes: await setting("full_page_writes"),
      unloggedTables: unlogged.rows[0]?.n ?? 0,
    };
  } finally {
    await client.end();
  }
}
