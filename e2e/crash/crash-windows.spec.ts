// Crash windows (issue #6): real worker processes die by SIGKILL at each boundary of a tool call; a recovery worker
// takes over and the ledger must hold.
// No page here, so not the fixtures' test, whose console-error guard would start a browser for nothing.
import { request as requests, test } from "@playwright/test";
import { createKey, personKey, userIdOf } from "../fixtures/api";
import { E2E_BASE_URL, TEST_ADMIN_EMAIL } from "../fixtures/test-env";
import { inPool, runCrashCase } from "./crash-case";
import { CRASH_POINTS, EFFECT_CLASSES, notApplicable } from "./matrix";
import { CrashProvider } from "./provider";
import { reportRun } from "./report";
import { WORKER_TABLE, type Cell } from "./table";

/** Cases in flight at once: each has its own tool, key and worker processes; more would only queue for the 2 cores. */
const CONCURRENCY = 8;

const CASES = CRASH_POINTS.flatMap((point) =>
  EFFECT_CLASSES.filter((effect) => notApplicable(point, effect) === null).map((effect) => ({ point, effect })),
);

test("crash windows: SIGKILL at every boundary and effect class, then a recovery worker takes over", async () => {
  test.setTimeout(360_000);
  const started = Date.now();
  // A new connection per call: with many cases in flight, a reused keep-alive socket the server just closed would
  // fail a request for reasons that have nothing to do with the ledger.
  const request = await requests.newContext({ baseURL: E2E_BASE_URL, extraHTTPHeaders: { connection: "close" } });
  const provider = new CrashProvider();
  await provider.start();
  const cells = new Map<string, Cell>();
  let problem: string | null = null;
  try {
    // Workers run with an agent key; the person who approves uses a key bound to them (the e2e admin): only a person
    // may approve, and four-eyes keeps the planner out.
    const { key: agentKey } = await createKey(["agent"]);
    const approver = { key: (await personKey()).key, userId: await userIdOf(TEST_ADMIN_EMAIL) };
    await inPool(CASES, CONCURRENCY, async ({ point, effect }) => {
      try {
        cells.set(`${point.id}/${effect}`, {
          result: await runCrashCase(
            { request, baseUrl: E2E_BASE_URL, provider, inProcess: false, agentKey, approver },
            point,
            effect,
          ),
        });
      } catch (error) {
        cells.set(`${point.id}/${effect}`, { failed: error instanceof Error ? error.message : String(error) });
      }
    });
  } finally {
    await provider.stop();
    await request.dispose();
    problem = reportRun(WORKER_TABLE, cells, started);
  }
  if (problem) throw new Error(problem);
});
