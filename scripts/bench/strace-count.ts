// Counting a process tree's flushes to disk (fsync, fdatasync) while some work runs: `strace -c` attached to each
// process of the tree, every thread followed. Tracing slows the traced processes, so the counts come from a pass of
// their own, never from a timed round.
import { spawn } from "node:child_process";
import { childrenOf } from "./process-memory";

/** The calls column of `strace -c`'s summary, by syscall name (the `total` line left out). */
export function parseStraceSummary(text: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of text.split("\n")) {
    // % time, seconds, usecs/call, calls, [errors,] syscall
    const fields = line.trim().split(/\s+/);
    const name = fields.at(-1);
    if (fields.length < 5 || !name || name === "total" || !/^[\d.]+$/.test(fields[0] ?? "")) continue;
    const calls = Number(fields[3]);
    if (Number.isInteger(calls)) counts[name] = (counts[name] ?? 0) + calls;
  }
  return counts;
}

function tree(pid: number): number[] {
  const pids: number[] = [];
  const pending = [pid];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    pids.push(next);
    pending.push(...childrenOf(next));
  }
  return pids;
}

/**
 * Runs `work` with strace attached to `pid` and its descendants, counting `syscalls`; resolves to the work's result and
 * the counts (each syscall present, 0 when never called).
 */
export async function countSyscalls<T>(
  pid: number,
  syscalls: string[],
  work: () => Promise<T>,
): Promise<{ result: T; counts: Record<string, number> }> {
  const pids = tree(pid);
  const strace = spawn(
    "strace",
    ["-f", "-c", "-e", `trace=${syscalls.join(",")}`, ...pids.flatMap((p) => ["-p", String(p)])],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  strace.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  // No strace on the machine: the module fails with that, not the runner with an unhandled error.
  strace.once("error", (error) => (stderr += `\n${String(error)}`));
  const exited = new Promise<number | null>((resolve) => strace.once("exit", resolve));
  // Every process of the tree announces its attachment; the work starts once all have.
  const deadline = Date.now() + 30_000;
  while ((stderr.match(/attached/g) ?? []).length < pids.length) {
    if (strace.exitCode !== null || strace.pid === undefined || Date.now() > deadline) {
      strace.kill();
      throw new Error(`strace could not attach: ${stderr.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  let result: T;
  try {
    result = await work();
  } finally {
    strace.kill("SIGINT");
    await exited;
  }
  const found = parseStraceSummary(stderr);
  return { result, counts: Object.fromEntries(syscalls.map((name) => [name, found[name] ?? 0])) };
}
