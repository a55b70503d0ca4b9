// Resident memory of a process and all its descendants, read from /proc (Linux), in MiB.
import fs from "node:fs";

export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/PID/stat is the parent; the command name (field 2) may hold spaces, so split after its ')'.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return children;
}

function rssKiB(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

export function treeRssMiB(pid: number): number {
  let total = 0;
  const pending = [pid];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    total += rssKiB(next);
    pending.push(...childrenOf(next));
  }
  return total / 1024;
}

/** Samples a process tree's RSS every `everyMs` until stopped; returns the samples. */
export function sampleRss(pid: number, everyMs = 250): { stop: () => number[] } {
  const samples: number[] = [treeRssMiB(pid)];
  const timer = setInterval(() => samples.push(treeRssMiB(pid)), everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      samples.push(treeRssMiB(pid));
      return samples;
    },
  };
}
