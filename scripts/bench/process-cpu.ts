// CPU time (user + system) a process and its descendants have used, ended ones included, read from /proc (Linux), in ms.
import fs from "node:fs";
import { childrenOf } from "./process-memory";

/** USER_HZ: the unit of /proc/PID/stat's times, 100 on every Linux this runs on. */
const TICK_MS = 10;

/**
 * A process's own CPU time and that of its children that ended and were waited for (cutime, cstime): a PostgreSQL
 * backend that exits mid-round keeps counting in its postmaster's, so the tree's total never goes down.
 */
function cpuMs(pid: number): number {
  try {
    // After the command name's ')', field 3 (state) comes first: utime, stime, cutime, cstime (14-17) are at 11-14.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * TICK_MS;
  } catch {
    return 0;
  }
}

export function treeCpuMs(pid: number): number {
  let total = 0;
  const pending = [pid];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    total += cpuMs(next);
    pending.push(...childrenOf(next));
  }
  return total;
}

/** CPU time of this process (the runner: load generators, in-process contenders), in milliseconds. */
export function ownCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}
