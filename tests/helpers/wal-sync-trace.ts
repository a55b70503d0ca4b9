// What a process kill cannot show (docs/durability.md): whether an acknowledged COMMIT had reached the disk or only the
// page cache. strace can: it records every write to the -wal file, every fsync/fdatasync of it and every
// acknowledgement ("ack ..." on stdout) in the order the process made them.
import { spawnSync } from "node:child_process";

const SYSCALLS = ["write", "pwrite64", "pwritev", "fsync", "fdatasync"];

/** Why the trace cannot be taken here (strace missing or not allowed to trace), or null when it can. */
export function straceUnavailable(): string | null {
  const probe = spawnSync("strace", ["-f", "-e", "trace=none", "true"], { encoding: "utf8" });
  if (probe.error) return `strace is not installed (apt-get install -y strace): ${probe.error.message}`;
  if (probe.status !== 0) return `strace cannot trace here: ${probe.stderr.trim()}`;
  return null;
}

/** `command` run under strace, its file syscalls logged to `log` with file paths (-y) and every thread (-f). */
export function traced(log: string, command: string[]): string[] {
  return [
    "strace",
    "-f",
    "-y",
    "-s",
    "64",
    "--seccomp-bpf",
    "-e",
    `trace=${SYSCALLS.join(",")}`,
    "-o",
    log,
    ...command,
  ];
}

export interface WalSyncReport {
  /** Acknowledgements the process began to write to stdout. */
  acks: number;
  /** Successful fsync/fdatasync calls on the -wal file. */
  walSyncs: number;
  /** Acknowledgements written while some write to the -wal file had not been synced yet. */
  unsyncedAcks: string[];
}

/**
 * `<pid> <syscall>(<fd><<path>>, <rest>` as strace -f -y -o logs a call; a call another thread interrupted ends in
 * `<unfinished ...>` and its result comes later as `<pid> <... <syscall> resumed>...`.
 */
const CALL = /^(\d+)\s+(\w+)\((\d+)<([^>]*)>(.*)$/;
const RESUMED = /^(\d+)\s+<\.\.\. (\w+) resumed>(.*)$/;

/**
 * Replays the trace: a write to the -wal leaves it dirty, an fsync or fdatasync of it that returned 0 makes it clean,
 * and an ack while it is dirty was given before its COMMIT was durable.
 */
export function walSyncReport(trace: string, walPath: string): WalSyncReport {
  const report: WalSyncReport = { acks: 0, walSyncs: 0, unsyncedAcks: [] };
  let dirty = false;
  /** Threads inside an fsync or fdatasync of the -wal whose result is still to come. */
  const syncing = new Set<string>();
  const synced = (result: string): void => {
    if (!/= 0$/.test(result)) return;
    dirty = false;
    report.walSyncs++;
  };
  for (const line of trace.split("\n")) {
    const resumed = RESUMED.exec(line);
    if (resumed) {
      const [, thread = "", , result = ""] = resumed;
      if (syncing.delete(thread)) synced(result);
      continue;
    }
    const call = CALL.exec(line);
    if (!call) continue;
    const [, thread = "", name, fd, path, rest = ""] = call;
    if (path === walPath) {
      if (name !== "fsync" && name !== "fdatasync") dirty = true;
      else if (rest.endsWith("<unfinished ...>")) syncing.add(thread);
      else synced(rest);
    } else if (name === "write" && fd === "1" && rest.startsWith(', "ack ')) {
      report.acks++;
      if (dirty) report.unsyncedAcks.push(rest.slice(3, rest.indexOf("\\n")));
    }
  }
  return report;
}
