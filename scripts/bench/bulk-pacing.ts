// Bulk pacing: the lifecycle benchmark's p99 over HTTP on SQLite (16 agents) with and without a 10,000-operation bulk
// action running in the same server (docs/operators.md#act-on-many-operations-at-once: the API's p99 unchanged within
// 20% while a 10,000-operation bulk action runs). The bulk runner works in batches with a pause between them; this
// measures whether that is enough.
import { applySqliteSettings } from "@/lib/platform/db/sqlite-settings";
import type { Actor } from "@/lib/ledger/actor";
import { cancelBulk } from "@/lib/ledger/bulk/job";
import { runBulk } from "@/lib/ledger/bulk/job";
import { previewBulk } from "@/lib/ledger/bulk/preview";
import { planOperation } from "@/lib/ledger/commands/plan";
import { putContract } from "@/lib/ledger/contracts/contract-versions";
import { LedgerError } from "@/lib/ledger/errors";
import { openLedger, type Ledger } from "@/lib/ledger/ledger";
import { buildIfStale, putBenchContract, startBenchServer } from "./bench-server";
import { freshSqlite } from "./databases";
import { HttpLoad } from "./http-load";
import { httpLifecycle } from "./lifecycle-http";
import { RoundFigures, runRotated } from "./rounds";
import { percentile } from "./stats";
import type { BenchModule } from "./types";
import { AGENTS, BENCH_CONTRACT } from "./workload";

const WARM_UP_SECONDS = 3;
const BULK_OPERATIONS = 10_000;
const BULK_TOOL = "bench.wire";
/** The target: p99 with a bulk action running at most 1.2x the p99 without. */
const P99_RATIO_LIMIT = 1.2;

/** The person who runs the bulk action (the ledger checks the role on the actor, as the console's session gives it). */
const PERSON: Actor = { type: "user", id: "bench-operator", label: "bench-operator@example.test", role: "operator" };
/** The agent whose 10,000 operations wait for a person. */
const AGENT: Actor = {
  type: "api_key",
  id: "bench-bulk-agent",
  label: "bench bulk agent",
  scopes: ["agent"],
  person: null,
};

async function inPool(count: number, size: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

/** 10,000 operations of a tool that asks a person first, in run `runId`: each waits for approval at once. */
async function seedWaiting(ledger: Ledger, runId: string): Promise<void> {
  await inPool(BULK_OPERATIONS, 16, async (i) => {
    await planOperation(ledger, { tool: BULK_TOOL, args: { runId, i }, runId }, AGENT, new Date());
  });
}

/** Previews and runs an approval of the run's 10,000 operations; the server's bulk runner picks the job up. */
async function startBulk(ledger: Ledger, runId: string): Promise<string> {
  const preview = await previewBulk(ledger, { action: "approve", filter: { runId } }, PERSON, new Date());
  if (preview.items.length !== BULK_OPERATIONS) throw new Error(`the preview holds ${preview.items.length} operations`);
  const { jobId } = await runBulk(ledger, { previewId: preview.previewId, reason: "bench" }, PERSON, new Date());
  return jobId;
}

async function settled(ledger: Ledger, jobId: string): Promise<{ settled: number; status: string }> {
  const job = await ledger.db.bulkAction.findUniqueOrThrow({ where: { jobId } });
  return { settled: job.acted + job.skipped + job.stale + job.failed, status: job.status };
}

/** Stops the job if it still runs, so the next quiet round is quiet. */
async function stopBulk(ledger: Ledger, jobId: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  // This process and the server write one SQLite file: a cancel that meets the runner's write is tried again.
  for (;;) {
    try {
      if ((await settled(ledger, jobId)).status === "running") {
        await cancelBulk(ledger, jobId, { reason: "bench round over" }, PERSON, new Date());
      }
      break;
    } catch (error) {
      const busy = error instanceof LedgerError && error.code === "database_busy";
      if (!busy || Date.now() > deadline) throw error;
    }
  }
  while ((await settled(ledger, jobId)).status === "running") {
    if (Date.now() > deadline) throw new Error(`bulk job ${jobId} did not stop`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export const benchmark: BenchModule = {
  name: "bulk-pacing",
  title: "lifecycle over HTTP on SQLite (16 agents), with and without a 10,000-operation bulk action running",
  async run({ rounds, roundSeconds, ports, workDir, reuseBuild, log }) {
    buildIfStale({ reuseBuild, log });
    const url = freshSqlite(workDir, "bulk");
    const server = await startBenchServer(url, ports[0] ?? 3400, log);
    const ledger = openLedger(url);
    await applySqliteSettings(ledger.db);
    const load = new HttpLoad(server.url, AGENTS, server.apiKey);
    const figures = new RoundFigures();
    const orders: string[][] = [];
    try {
      await putBenchContract(server);
      // The job stops if its person may no longer act, so the person is a real operator.
      await ledger.db.user.create({
        data: { id: PERSON.id, email: PERSON.label, name: "bench operator", role: "operator", passwordHash: "-" },
      });
      await putContract(
        ledger,
        BULK_TOOL,
        {
          ...BENCH_CONTRACT,
          effect: "NON_RETRYABLE",
          approval: "required",
          idempotencyKey: "optional",
          keyRetentionMs: null,
        },
        PERSON,
        new Date(),
      );
      await load.round(AGENTS, WARM_UP_SECONDS, (send, agent, n) => httpLifecycle(send, agent, -1 - n));
      for (let round = 1; round <= rounds; round++) {
        const runId = `bulk-round-${round}`;
        const seeded = Date.now();
        await seedWaiting(ledger, runId);
        log(`round ${round}: seeded ${BULK_OPERATIONS} waiting operations in ${Date.now() - seeded} ms`);
        let during = { settled: 0, status: "running", seconds: 0 };
        const { results, order } = await runRotated(
          {
            quiet: () =>
              load.round(AGENTS, roundSeconds, (send, agent, n) => httpLifecycle(send, agent, round * 1_000_000 + n)),
            "bulk running": async () => {
              const jobId = await startBulk(ledger, runId);
              const before = await settled(ledger, jobId);
              const t0 = Date.now();
              const life = await load.round(AGENTS, roundSeconds, (send, agent, n) =>
                httpLifecycle(send, agent, round * 1_000_000 + 500_000 + n),
              );
              const after = await settled(ledger, jobId);
              during = {
                settled: after.settled - before.settled,
                status: after.status,
                seconds: (Date.now() - t0) / 1000,
              };
              await stopBulk(ledger, jobId);
              return life;
            },
          },
          round,
        );
        orders.push(order);
        const quietP99 = percentile(results.quiet.latenciesMs, 99);
        const bulkP99 = percentile(results["bulk running"].latenciesMs, 99);
        figures.record("lifecycle call p99, quiet", "ms", quietP99);
        figures.record("lifecycle call p99, bulk running", "ms", bulkP99);
        figures.record("p99 bulk running / quiet", "ratio", bulkP99 / quietP99);
        figures.record("lifecycle requests/s, quiet", "1/s", results.quiet.requests / results.quiet.seconds);
        figures.record(
          "lifecycle requests/s, bulk running",
          "1/s",
          results["bulk running"].requests / results["bulk running"].seconds,
        );
        figures.record("bulk items settled/s during the round", "1/s", during.settled / during.seconds);
        log(
          `round ${round} (${order.join(", ")}): p99 quiet ${quietP99.toFixed(1)} ms, with bulk ${bulkP99.toFixed(1)} ms ` +
            `(${(bulkP99 / quietP99).toFixed(2)}x); bulk settled ${during.settled} items in ${during.seconds.toFixed(1)} s ` +
            `(${during.status} at the round's end)`,
        );
      }
    } finally {
      await load.close();
      await server.stop();
      await ledger.close();
    }
    return {
      figures: figures.list(),
      targets: [
        {
          label:
            `lifecycle p99 with a ${BULK_OPERATIONS.toLocaleString("en")}-operation bulk action running within ` +
            `${P99_RATIO_LIMIT}x of without`,
          figure: "p99 bulk running / quiet",
          statistic: "median",
          comparison: "<",
          limit: P99_RATIO_LIMIT,
        },
      ],
      notes: {
        roundOrders: orders,
        agents: AGENTS,
        lifecycle: "POST /operations (201), /claim, /dispatch, /outcome confirmed: 4 requests",
        bulk:
          `approve ${BULK_OPERATIONS} AWAITING_APPROVAL operations of a NON_RETRYABLE tool, started just before the ` +
          `round; cancelled after it`,
        runner: "the server's bulk runner: batches of 25, a 200 ms pause between batches, 2 items in flight",
        database: "fresh SQLite file, WAL, synchronous=FULL",
      },
    };
  },
};
