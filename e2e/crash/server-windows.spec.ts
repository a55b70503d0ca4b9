// Server-side crash windows (issue #19): the ledger server SIGKILLs itself at a kill point (after a command's commit,
// before its answer; in the sweep's take-over; in auto-reconcile's lookup), is started again (on PostgreSQL a second
// instance serves meanwhile), and the agent recovers: no duplicate effect, no duplicate call.
// No page here, so not the fixtures' test, whose console-error guard would start a browser for nothing.
import { expect, request as requests, test, type APIRequestContext } from "@playwright/test";
import { uniqueTool } from "../fixtures/api";
import { inPool, prepareTool, recoverAndCheck, type CaseContext, type PreparedCase } from "./crash-case";
import { CrashServers, type Arm } from "./crash-servers";
import { CrashProvider } from "./provider";
import { reportRun } from "./report";
import { crashOf, provoke, type Provoked } from "./server-case";
import { SERVER_TABLE, SERVER_WINDOWS, type ServerWindow } from "./server-windows";
import type { EffectClass } from "./matrix";
import type { Cell } from "./table";

/** Cases in recovery at once: each starts worker processes; more would only queue for the 2 cores. */
const RECOVERY_CONCURRENCY = 10;

interface Case {
  window: ServerWindow;
  effect: EffectClass;
  /** Named before the server that dies for it starts. */
  tool: string;
}

const CASES: Case[] = SERVER_WINDOWS.flatMap((window) =>
  window.classes.map((effect) => ({ window, effect, tool: uniqueTool(`crash.${effect.toLowerCase()}`) })),
);

/**
 * The server dies once for every case of the API windows (their answers are held until all have arrived), then once per
 * case of the windows in its own loops; the take-over race kills nothing.
 */
const GROUPS: Case[][] = [
  CASES.filter((c) => c.window.together),
  CASES.filter((c) => c.window.killAt !== null && !c.window.together),
  CASES.filter((c) => c.window.killAt === null),
];

const pairOf = (c: Case) => `${c.window.killAt}@${c.tool}`;
const armOf = (group: Case[] = []): Arm => group.filter((c) => c.window.killAt !== null).map(pairOf);
const cellOf = (c: Case) => `${c.window.id}/${c.effect}`;
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

type Provoking = { prepared: PreparedCase; provoked: Provoked } | { failed: string };

/** Waits for a group's deaths, restarting the server after each: armed for what is left, then for the next group. */
async function awaitDeaths(servers: CrashServers, pairs: Arm, together: boolean, next: Arm): Promise<void> {
  let remaining = pairs;
  while (remaining.length > 0) {
    const died = await servers.killed();
    if (together) expect([...died].sort(), "every case reached its point").toEqual([...remaining].sort());
    else expect(died.length === 1 && remaining.includes(died[0]!), `one case at a time: ${died.join(", ")}`).toBe(true);
    remaining = remaining.filter((pair) => !died.includes(pair));
    servers.restart(remaining.length > 0 ? remaining : next);
    // The next death needs the new server; after the last one, a survivor (PostgreSQL) serves the recovery meanwhile.
    if (remaining.length > 0) await servers.ready();
  }
}

/** After the server came back: each case's crash as the ledger shows it, the recovery, and the checks. */
async function recoverGroup(ctx: CaseContext, group: Case[], provoking: Provoking[], cells: Map<string, Cell>) {
  await inPool(
    group.map((c, n) => ({ c, provoked: provoking[n]! })),
    RECOVERY_CONCURRENCY,
    async ({ c, provoked }) => {
      if ("failed" in provoked) return void cells.set(cellOf(c), provoked);
      try {
        const crash = await crashOf(ctx, provoked.prepared, provoked.provoked);
        const result = await recoverAndCheck(ctx, provoked.prepared, crash, c.window, {
          afterCrash: c.window.afterCrash(c.effect),
          ambiguous: c.window.ambiguous,
          calls: 1,
        });
        cells.set(cellOf(c), { result });
      } catch (error) {
        cells.set(cellOf(c), { failed: message(error) });
      }
    },
  );
}

test("server-side crash windows: SIGKILL the server in every window and effect class, then the agent recovers", async () => {
  test.setTimeout(600_000);
  const started = Date.now();
  const provider = new CrashProvider();
  await provider.start();
  const cells = new Map<string, Cell>();
  const contexts: APIRequestContext[] = [];
  let servers: CrashServers | null = null;
  let problem: string | null = null;
  try {
    servers = await CrashServers.start(armOf(GROUPS[0]));
    const keys = await servers.keys();
    // A new connection per call: a kept-alive socket of a server that died would fail the next request.
    const context = async (baseURL: string): Promise<CaseContext> => {
      const request = await requests.newContext({ baseURL, extraHTTPHeaders: { connection: "close" } });
      contexts.push(request);
      // The agents run inside this process: here the server dies, not they (the windows that kill or stop an agent
      // start it as a process all the same).
      return { request, baseUrl: baseURL, provider, inProcess: true, ...keys };
    };
    const doomed = await context(servers.doomedUrl);
    const recovery = servers.survivor ? await context(servers.recoveryUrl) : doomed;
    const recoveries: Promise<void>[] = [];

    for (const [g, group] of GROUPS.entries()) {
      await servers.ready();
      // With one server (SQLite) nothing may be in flight when it dies but the group's own cases.
      if (!servers.survivor && armOf(group).length > 0) await Promise.all(recoveries);
      // The agents run until the server dies under them (or die themselves, and the server after them).
      const provoking: Provoking[] = await Promise.all(
        group.map(async (c) => {
          try {
            const prepared = await prepareTool(doomed, c.tool, c.window.id, c.effect, c.window.contract);
            return { prepared, provoked: await provoke(doomed, prepared, c.window) };
          } catch (error) {
            return { failed: message(error) };
          }
        }),
      );
      const reached = armOf(group.filter((_, n) => !("failed" in provoking[n]!)));
      try {
        await awaitDeaths(servers, reached, group[0]?.window.together ?? false, armOf(GROUPS[g + 1]));
      } catch (error) {
        group.forEach((c, n) => {
          const own = provoking[n]!;
          cells.set(cellOf(c), "failed" in own ? own : { failed: message(error) });
        });
        servers.restart(armOf(GROUPS[g + 1]));
        continue;
      }
      const back = servers;
      recoveries.push(
        (async () => {
          if (!back.survivor) await back.ready();
          await recoverGroup(recovery, group, provoking, cells);
        })(),
      );
    }
    await Promise.all(recoveries);
    const restarts = servers.restarts;
    console.log(
      `[server-windows] ${restarts.length} restarts, ${Math.round(restarts.reduce((a, b) => a + b, 0) / 1000)} s in all`,
    );
  } finally {
    await servers?.stop();
    for (const request of contexts) await request.dispose();
    await provider.stop();
    problem = reportRun(SERVER_TABLE, cells, started);
  }
  if (problem) throw new Error(problem);
});
