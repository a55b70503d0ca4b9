// Test-only kill points: where a server process SIGKILLs itself so the crash harness (e2e/crash) can test what a crash
// right there leaves behind. Every body is guarded by OPLEDGER_TEST_HOOKS, which next.config.js inlines at build time:
// "" in a normal build, so the minifier drops the code and a production build cannot contain a kill.
import { writeSync } from "node:fs";

const globalForKillPoints = globalThis as unknown as { opledgerKillArrivals?: Set<string> };

/**
 * The kill points this process was started with: OPLEDGER_KILL_AT lists `<point>@<tool>` pairs, comma-separated (a
 * tool name has no comma or @), so concurrent cases on other tools pass the same point untouched.
 */
function armed(): string[] {
  return (process.env.OPLEDGER_KILL_AT ?? "").split(",").filter((pair) => pair !== "");
}

/** One line on stderr, written before the signal (synchronously, so it is out of the process first), then SIGKILL. */
function die(pairs: string[]): void {
  writeSync(2, `opledger-test: killed at ${pairs.join(", ")}\n`);
  process.kill(process.pid, "SIGKILL");
}

/**
 * Dies here at the first arrival of a listed pair: the points in the server's background loops (the sweep,
 * auto-reconcile), which reach one operation at a time and must not be held.
 */
export function killPoint(point: string, tool: string): void {
  if (process.env.OPLEDGER_TEST_HOOKS === "1") {
    const pair = `${point}@${tool}`;
    if (armed().includes(pair)) die([pair]);
  }
}

/**
 * The agent plane's points, `after_commit:<command>` (`command` is the route's: `plan` for POST /api/v1/operations,
 * `X` for POST /api/v1/operations/{id}/X): the command committed and its answer is built, not sent. Each answer for a
 * listed pair is held until every listed pair has arrived, then the process dies with all of them unanswered: one
 * death and one restart cover every case of every window listed.
 */
export async function killAfterCommit(command: string, reply: { status: number; body: string | null }): Promise<void> {
  if (process.env.OPLEDGER_TEST_HOOKS === "1") {
    const pairs = armed();
    const ok = reply.status >= 200 && reply.status < 300;
    if (!ok || reply.body === null || !pairs.some((pair) => pair.startsWith(`after_commit:${command}@`))) return;
    const body = JSON.parse(reply.body) as { tool?: string; operation?: { tool?: string } };
    const pair = `after_commit:${command}@${body.tool ?? body.operation?.tool ?? ""}`;
    if (!pairs.includes(pair)) return;
    const arrived = (globalForKillPoints.opledgerKillArrivals ??= new Set());
    arrived.add(pair);
    if (pairs.every((p) => arrived.has(p))) die(pairs);
    // Held: this answer is never sent; the process dies once the last listed pair arrives.
    await new Promise<never>(() => undefined);
  }
}
