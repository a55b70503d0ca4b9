// Benchmark 4: the ledger's lifecycle on PostgreSQL beside pg-boss and Graphile Worker doing the same number of jobs,
// and its claim on plan with a provider call beside DBOS's one-step workflow around the same call, on a durable cluster
// of the benchmark's own (the headline), then on one with fsync off (an extra column).
import { ProviderClient, startProvider, type BenchProvider } from "./bench-provider";
import { createPgDatabase, databaseUrl, openBenchLedger } from "./databases";
import { startDbos } from "./dbos-peer";
import { startGraphileWorker } from "./graphile-worker-peer";
import { ledgerLifecycle, ledgerLifecycleClaimOnPlan, runAgents, runCount } from "./ledger-lifecycle";
import { startPgBoss } from "./pg-boss-peer";
import { ensurePeers, peerVersion } from "./peers";
import { perCall } from "./per-call";
import { pgCounters } from "./pg-work";
import { durabilityOf, startThrowawayCluster, type ThrowawayCluster } from "./pg-throwaway";
import { prepareDatabase } from "../prepare-database";
import { ownCpuMs, treeCpuMs } from "./process-cpu";
import { RoundFigures, runRotated } from "./rounds";
import { percentile } from "./stats";
import { countSyscalls } from "./strace-count";
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

/** Jobs counted (not timed) per contender for the work each does per call, on the durable cluster. */
const COUNTED_JOBS = AGENTS * 25;

/** `total` calls of a contender that makes the provider call, with each call's latency and the CPU per call. */
async function timedCalls(total: number, call: (agent: number, n: number) => Promise<unknown>, postgres: number) {
  const latencies: number[] = [];
  const cpu = (): Record<string, number> => ({ PostgreSQL: treeCpuMs(postgres), runner: ownCpuMs() });
  const before = cpu();
  const started = performance.now();
  await runCount(AGENTS, total, async (agent, n) => {
    const t0 = performance.now();
    await call(agent, n);
    latencies.push(performance.now() - t0);
  });
  const seconds = (performance.now() - started) / 1000;
  return {
    seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpu: perCall(before, cpu(), total),
  };
}

/** Transactions, WAL records, flushes and provider calls per call of a contender, counted in an untimed pass. */
async function countedWork(
  cluster: ThrowawayCluster,
  url: string,
  provider: BenchProvider,
  call: (agent: number, n: number) => Promise<unknown>,
): Promise<Record<string, number>> {
  const before = { ...(await pgCounters(url)), providerCalls: await provider.calls() };
  const { counts } = await countSyscalls(cluster.pid(), ["fsync", "fdatasync"], () =>
    runCount(AGENTS, COUNTED_JOBS, call),
  );
  const after = { ...(await pgCounters(url)), providerCalls: await provider.calls() };
  return { ...perCall(before, after, COUNTED_JOBS), ...perCall({}, counts, COUNTED_JOBS) };
}

/** A round's seconds, whether the contender reported only those or its latencies too. */
const secondsOf = (r: number | { seconds: number }): number => (typeof r === "number" ? r : r.seconds);

/** `total` jobs of a queue, timed until the last completion is committed. */
function queueRound(peer: QueuePeer, total: number, base: number): Promise<number> {
  return seconds(async () => {
    await runCount(AGENTS, total, (agent, n) => peer.job(agent, base + n));
    await peer.settled();
  });
}

/**
 * The six contenders on one server, `rounds` rounds in rotating order: the ledger in four and in three steps, pg-boss
 * and Graphile Worker, then the ledger's three steps with the provider call between dispatch and outcome and DBOS's
 * one-step workflow around the same call. Returns what the notes need.
 */
async function measure(
  cluster: ThrowawayCluster,
  provider: BenchProvider,
  suffix: string,
  figures: RoundFigures,
  { rounds, roundSeconds, log }: BenchOptions,
): Promise<Record<string, unknown>> {
  const server = cluster.url;
  const names = {
    ledger: `bench_ledger_${process.pid}`,
    boss: `bench_pgboss_${process.pid}`,
    graphile: `bench_graphile_${process.pid}`,
    dbos: `bench_dbos_${process.pid}`,
  };
  const drops = await Promise.all(Object.values(names).map((name) => createPgDatabase(server, name)));
  const urls = {
    ledger: databaseUrl(server, names.ledger),
    boss: databaseUrl(server, names.boss),
    graphile: databaseUrl(server, names.graphile),
    dbos: databaseUrl(server, names.dbos),
  };
  prepareDatabase(urls.ledger);
  const { ledger } = await openBenchLedger(urls.ledger, POOL_SIZE);
  const peers: QueuePeer[] = [];
  const orders: string[][] = [];
  const agentsProvider = new ProviderClient(provider.url, AGENTS);
  let stopDbos = (): Promise<void> => Promise.resolve();
  try {
    const boss = await startPgBoss(urls.boss, POOL_SIZE, log);
    peers.push(boss);
    const graphile = await startGraphileWorker(urls.graphile, POOL_SIZE, POOL_SIZE, log);
    peers.push(graphile);
    const dbos = await startDbos(urls.dbos, POOL_SIZE, agentsProvider);
    stopDbos = () => dbos.stop();
    const withProvider = (base: number) => (agent: number, n: number) =>
      ledgerLifecycleClaimOnPlan(ledger, agent, base + n, (args) => agentsProvider.charge(args));
    const dbosJob = (base: number) => (agent: number, n: number) => dbos.job(agent, base + n);
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
    await runAgents(AGENTS, Date.now() + WARM_UP_SECONDS * 1000, withProvider(-2_000_000));
    await runAgents(AGENTS, Date.now() + WARM_UP_SECONDS * 1000, dbosJob(-1_000_000));
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
          "claim on plan + provider": () => timedCalls(jobs, withProvider(base + 700_000), cluster.pid()),
          DBOS: () => timedCalls(jobs, dbosJob(base), cluster.pid()),
        },
        round,
      );
      const [effect, dbosRound] = [s["claim on plan + provider"], s.DBOS];
      orders.push(order);
      figures.record(`ledger lifecycles/s (4 steps)${suffix}`, "1/s", jobs / s.ledger);
      figures.record(`ledger, claim on plan (3 steps), lifecycles/s${suffix}`, "1/s", jobs / s["claim on plan"]);
      figures.record(`pg-boss jobs/s (send, fetch, complete)${suffix}`, "1/s", jobs / s["pg-boss"]);
      figures.record(`Graphile Worker jobs/s (add, fetch, complete)${suffix}`, "1/s", jobs / s["Graphile Worker"]);
      figures.record(`ledger / pg-boss${suffix}`, "ratio", s["pg-boss"] / s.ledger);
      figures.record(`ledger / Graphile Worker${suffix}`, "ratio", s["Graphile Worker"] / s.ledger);
      figures.record(`claim on plan / pg-boss${suffix}`, "ratio", s["pg-boss"] / s["claim on plan"]);
      figures.record(`claim on plan / Graphile Worker${suffix}`, "ratio", s["Graphile Worker"] / s["claim on plan"]);
      for (const [name, r] of [
        ["ledger, claim on plan + provider call", effect],
        ["DBOS one-step workflow (provider call)", dbosRound],
      ] as const) {
        figures.record(`${name}, calls/s${suffix}`, "1/s", jobs / r.seconds);
        figures.record(`${name}, p50${suffix}`, "ms", r.p50);
        figures.record(`${name}, p99${suffix}`, "ms", r.p99);
        for (const [role, ms] of Object.entries(r.cpu))
          figures.record(`${name}, CPU per call, ${role}${suffix}`, "ms", ms);
      }
      figures.record(`claim on plan + provider / DBOS${suffix}`, "ratio", dbosRound.seconds / effect.seconds);
      log(
        `round ${round} (${order.join(", ")}), ${jobs} jobs each: ` +
          `${order.map((name) => `${name} ${(jobs / secondsOf(s[name])).toFixed(0)}/s`).join(", ")}; ledger / pg-boss ` +
          `${(s["pg-boss"] / s.ledger).toFixed(2)}, ledger / Graphile Worker ` +
          `${(s["Graphile Worker"] / s.ledger).toFixed(2)}, claim on plan + provider / DBOS ` +
          `${(dbosRound.seconds / effect.seconds).toFixed(2)}`,
      );
    }
    // What each of the two does per call, on the durable cluster only (the counts are the cluster's, so one at a time).
    const workPerCall = suffix
      ? undefined
      : {
          "ledger, claim on plan + provider call": await countedWork(
            cluster,
            urls.ledger,
            provider,
            withProvider(8_000_000),
          ),
          "DBOS one-step workflow": await countedWork(cluster, urls.dbos, provider, dbosJob(8_000_000)),
        };
    if (workPerCall)
      log(
        `work per call: ${JSON.stringify(workPerCall, (_, v: unknown) => (typeof v === "number" ? Number(v.toFixed(3)) : v))}`,
      );
    return {
      jobsPerRound: jobs,
      roundOrders: orders,
      workPerCall,
      durability: {
        ledger: await durabilityOf(urls.ledger),
        pgBoss: await durabilityOf(urls.boss),
        graphileWorker: await durabilityOf(urls.graphile),
        dbos: await durabilityOf(urls.dbos),
      },
    };
  } finally {
    await stopDbos().catch((error: unknown) => log(`stopping DBOS: ${String(error)}`));
    await agentsProvider.close();
    for (const peer of peers) await peer.stop().catch((error: unknown) => log(`stopping a queue: ${String(error)}`));
    await ledger.close();
    for (const drop of drops) await drop();
  }
}

export const benchmark: BenchModule = {
  name: "pg-queues",
  title:
    "ledger lifecycle on PostgreSQL beside pg-boss, Graphile Worker and DBOS, same jobs; durable cluster, then fsync off",
  async run(options) {
    ensurePeers(options.log);
    const figures = new RoundFigures();
    const clusters: Record<string, unknown> = {};
    const provider = await startProvider(options.ports[CLUSTERS.length] ?? 3400 + CLUSTERS.length, options.log);
    try {
      for (const [index, { durable, suffix }] of CLUSTERS.entries()) {
        const port = options.ports[index] ?? 3400 + index;
        options.log(`${durable ? "durable" : "fsync-off"} cluster on port ${port}`);
        const cluster = startThrowawayCluster(port, durable);
        try {
          clusters[durable ? "durable" : "fsyncOff"] = await measure(cluster, provider, suffix, figures, options);
        } finally {
          cluster.stop();
        }
      }
    } finally {
      await provider.stop();
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
        {
          label: "ledger, claim on plan + provider call, at least DBOS's one-step workflows (durable)",
          figure: "claim on plan + provider / DBOS",
          statistic: "median",
          comparison: ">=",
          limit: 1,
        },
      ],
      notes: {
        clusters,
        server:
          "PostgreSQL 15, throwaway clusters started by the benchmark on the same machine: initdb defaults (fsync, " +
          "synchronous_commit, full_page_writes on), then the test cluster's fsync=off, synchronous_commit=off, full_page_writes=off",
        agents: AGENTS,
        poolSize: POOL_SIZE,
        pgBoss:
          "pg-boss 10.4.2, its own database, supervise and schedule off, default queue policy; send, fetch, complete awaited by the agent",
        graphileWorker:
          `graphile-worker 0.18.0, its own database, run() with concurrency ${POOL_SIZE} and maxPoolSize ` +
          `${POOL_SIZE} (its LISTEN connection included; it warns when concurrency exceeds the pool), ${AGENTS} agents ` +
          `adding jobs, otherwise default options (no local queue, no batched completion); each agent addJob()s and ` +
          `waits for the worker's job:complete; a round ends when the job table is empty (its completions are ` +
          `committed after the worker moves on)`,
        ledger:
          "planOperation, claimLease (fence), dispatchOperation, reportOutcome confirmed, called in-process on the " +
          "ledger store's pipelined connections (batched commands); claim on plan: planOperation with claim, then " +
          "dispatch and outcome; claim on plan + provider: the provider call (POST to a provider process) between dispatch and outcome",
        dbos:
          `@dbos-inc/dbos-sdk ${peerVersion("@dbos-inc/dbos-sdk")}, in the runner's process, its own system database ` +
          `with a pool of ${POOL_SIZE}: one workflow with one step (DBOS.runStep) around the same provider call, ` +
          `DBOS.startWorkflow with a workflow id per job, then getResult; ${AGENTS} concurrent; other options at their defaults`,
        provider:
          "a Node process of its own answering POST /charges with a new id, called through the same undici client by the " +
          "ledger's agents and by DBOS's step",
        workCounting:
          `on the durable cluster after its rounds, ${COUNTED_JOBS} calls per contender, untimed: ` +
          `transaction ids handed out (write transactions), the database's commits (pg_stat_database), pg_stat_wal's ` +
          `records, writes and syncs, and strace -f -c -e trace=fsync,fdatasync on the postmaster and its backends`,
      },
    };
  },
};
