// Benchmark 4: the ledger's lifecycle on PostgreSQL beside pg-boss and Graphile Worker doing the same number of jobs,
// on a durable cluster of the benchmark's own (the headline), then on one with fsync off (an extra column).
import { createPgDatabase, databaseUrl, openBenchLedger } from "./databases";
import { startGraphileWorker } from "./graphile-worker-peer";
import { ledgerLifecycle, ledgerLifecycleClaimOnPlan, runAgents, runCount } from "./ledger-lifecycle";
import { startPgBoss } from "./pg-boss-peer";
import { durabilityOf, startThrowawayCluster } from "./pg-throwaway";
import { prepareDatabase } from "../prepare-database";
import { RoundFigures, runRotated } from "./rounds";
import type { BenchModule, BenchOptions, QueuePeer } from "./types";
import { AGENTS } from "./workload";

/** Every contender gets the product's default PostgreSQL pool (DATABASE_POOL_SIZE), which is also both queues'. */
const POOL_SIZE = 10;
const WARM_UP_SECONDS = 2;
/** The headline first; the fsync-off figures carry the suffix. */
const CLUSTERS = [
  { durable: true, suffix: "" },
  { durable: false, suffix: " (fsync off)" },
];

async function seconds(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

/** `total` jobs of a queue, timed until the last completion is committed. */
function queueRound(peer: QueuePeer, total: number, base: number): Promise<number> {
  return seconds(async () => {
    await runCount(AGENTS, total, (agent, n) => peer.job(agent, base + n));
    await peer.settled();
  });
}

/** The four contenders on one server, `rounds` rounds in rotating order; returns what the notes need. */
async function measure(
  server: string,
  suffix: string,
  figures: RoundFigures,
  { rounds, roundSeconds, log }: BenchOptions,
): Promise<Record<string, unknown>> {
  const names = {
    ledger: `bench_ledger_${process.pid}`,
    boss: `bench_pgboss_${process.pid}`,
    graphile: `bench_graphile_${process.pid}`,
  };
  const drops = await Promise.all(Object.values(names).map((name) => createPgDatabase(server, name)));
  const urls = {
    ledger: databaseUrl(server, names.ledger),
    boss: databaseUrl(server, names.boss),
    graphile: databaseUrl(server, names.graphile),
  };
  prepareDatabase(urls.ledger);
  const { ledger } = await openBenchLedger(urls.ledger, POOL_SIZE);
  const peers: QueuePeer[] = [];
  const orders: string[][] = [];
  try {
    const boss = await startPgBoss(urls.boss, POOL_SIZE, log);
    peers.push(boss);
    const graphile = await startGraphileWorker(urls.graphile, POOL_SIZE, POOL_SIZE, log);
    peers.push(graphile);
    // The warm-up also sizes the rounds: as many jobs as the ledger completes in a round, the same number for the
    // others.
    const t0 = performance.now();
    const warm = await runAgents(AGENTS, Date.now() + WARM_UP_SECONDS * 1000, (agent, n) =>
      ledgerLifecycle(ledger, agent, -1 - n),
    );
    const jobs = Math.max(AGENTS * 10, Math.round((warm / ((performance.now() - t0) / 1000)) * roundSeconds));
    await runAgents(AGENTS, Date.now() + WARM_UP_SECONDS * 1000, (agent, n) =>
      ledgerLifecycleClaimOnPlan(ledger, agent, -1_000_000 - n),
    );
    for (const peer of peers) {
      await runAgents(AGENTS, Date.now() + WARM_UP_SECONDS * 1000, (agent, n) => peer.job(agent, -1 - n));
      await peer.settled();
    }
    for (let round = 1; round <= rounds; round++) {
      const base = round * 1_000_000;
      const { results: s, order } = await runRotated(
        {
          ledger: () => seconds(() => runCount(AGENTS, jobs, (agent, n) => ledgerLifecycle(ledger, agent, base + n))),
          "claim on plan": () =>
            seconds(() =>
              runCount(AGENTS, jobs, (agent, n) => ledgerLifecycleClaimOnPlan(ledger, agent, base + 500_000 + n)),
            ),
          "pg-boss": () => queueRound(boss, jobs, base),
          "Graphile Worker": () => queueRound(graphile, jobs, base),
        },
        round,
      );
      orders.push(order);
      figures.record(`ledger lifecycles/s (4 steps)${suffix}`, "1/s", jobs / s.ledger);
      figures.record(`ledger, claim on plan (3 steps), lifecycles/s${suffix}`, "1/s", jobs / s["claim on plan"]);
      figures.record(`pg-boss jobs/s (send, fetch, complete)${suffix}`, "1/s", jobs / s["pg-boss"]);
      figures.record(`Graphile Worker jobs/s (add, fetch, complete)${suffix}`, "1/s", jobs / s["Graphile Worker"]);
      figures.record(`ledger / pg-boss${suffix}`, "ratio", s["pg-boss"] / s.ledger);
      figures.record(`ledger / Graphile Worker${suffix}`, "ratio", s["Graphile Worker"] / s.ledger);
      figures.record(`claim on plan / pg-boss${suffix}`, "ratio", s["pg-boss"] / s["claim on plan"]);
      figures.record(`claim on plan / Graphile Worker${suffix}`, "ratio", s["Graphile Worker"] / s["claim on plan"]);
      log(
        `round ${round} (${order.join(", ")}), ${jobs} jobs each: ${order.map((name) => `${name} ${(jobs / s[name]).toFixed(0)}/s`).join(", ")}; ledger / pg-boss ${(s["pg-boss"] / s.ledger).toFixed(2)}, ledger / Graphile Worker ${(s["Graphile Worker"] / s.ledger).toFixed(2)}`,
      );
    }
    return {
      jobsPerRound: jobs,
      roundOrders: orders,
      durability: {
        ledger: await durabilityOf(urls.ledger),
        pgBoss: await durabilityOf(urls.boss),
        graphileWorker: await durabilityOf(urls.graphile),
      },
    };
  } finally {
    for (const peer of peers) await peer.stop().catch((error: unknown) => log(`stopping a queue: ${String(error)}`));
    await ledger.close();
    for (const drop of drops) await drop();
  }
}

export const benchmark: BenchModule = {
  name: "pg-queues",
  title:
    "ledger lifecycle on PostgreSQL beside pg-boss and Graphile Worker, same jobs; durable cluster, then fsync off",
  async run(options) {
    const figures = new RoundFigures();
    const clusters: Record<string, unknown> = {};
    for (const [index, { durable, suffix }] of CLUSTERS.entries()) {
      const port = options.ports[index] ?? 3400 + index;
      options.log(`${durable ? "durable" : "fsync-off"} cluster on port ${port}`);
      const cluster = startThrowawayCluster(port, durable);
      try {
        clusters[durable ? "durable" : "fsyncOff"] = await measure(cluster.url, suffix, figures, options);
      } finally {
        cluster.stop();
      }
    }
    return {
      figures: figures.list(),
      // The targets of issue #19, on the durable cluster, for the four-step lifecycle; the claim on the plan is
      // published beside them without one.
      targets: [
        {
          label: "ledger (4 steps) at least 1.5x pg-boss (durable)",
          figure: "ledger / pg-boss",
          statistic: "median",
          comparison: ">=",
          limit: 1.5,
        },
        {
          label: "ledger (4 steps) at least 0.5x Graphile Worker (durable)",
          figure: "ledger / Graphile Worker",
          statistic: "median",
          comparison: ">=",
          limit: 0.5,
        },
      ],
      notes: {
        clusters,
        server:
          "PostgreSQL 15, throwaway clusters started by the benchmark on the same machine: initdb defaults (fsync, synchronous_commit, full_page_writes on), then the test cluster's fsync=off, synchronous_commit=off, full_page_writes=off",
        agents: AGENTS,
        poolSize: POOL_SIZE,
        pgBoss:
          "pg-boss 10.4.2, its own database, supervise and schedule off, default queue policy; send, fetch, complete awaited by the agent",
        graphileWorker: `graphile-worker 0.18.0, its own database, run() with concurrency ${POOL_SIZE} and maxPoolSize ${POOL_SIZE} (its LISTEN connection included; it warns when concurrency exceeds the pool), ${AGENTS} agents adding jobs, otherwise default options (no local queue, no batched completion); each agent addJob()s and waits for the worker's job:complete; a round ends when the job table is empty (its completions are committed after the worker moves on)`,
        ledger:
          "planOperation, claimLease (fence), dispatchOperation, reportOutcome confirmed, called in-process on the ledger store's pipelined connections (batched commands); claim on plan: planOperation with claim, then dispatch and outcome",
      },
    };
  },
};
