// Benchmark 4: the ledger's lifecycle on PostgreSQL beside pg-boss (send, fetch, complete) for the same number of jobs
// on the same server.
import PgBoss from "pg-boss";
import { createPgDatabase, databaseUrl, openBenchLedger } from "./databases";
import { ledgerLifecycle, ledgerLifecycleClaimOnPlan, runAgents, runCount } from "./ledger-lifecycle";
import { benchPostgresUrl } from "./pg-server";
import { prepareDatabase } from "../prepare-database";
import type { BenchModule } from "./types";
import { AGENTS, benchArgs } from "./workload";

const QUEUE = "bench-charge";
/** Both sides get the product's default PostgreSQL pool (DATABASE_POOL_SIZE) and pg-boss's default: 10 connections. */
const POOL_SIZE = 10;
const WARM_UP_SECONDS = 2;

/**
 * One pg-boss job: sent, fetched by the same agent's worker loop (or another agent's job, as a queue does), completed.
 */
async function bossJob(boss: PgBoss, agent: number, n: number): Promise<void> {
  await boss.send(QUEUE, benchArgs(agent, n));
  for (;;) {
    const [job] = await boss.fetch<unknown>(QUEUE);
    if (job) {
      await boss.complete(QUEUE, job.id);
      return;
    }
  }
}

export const benchmark: BenchModule = {
  name: "pg-boss",
  title: "ledger lifecycle on PostgreSQL (fencing on) beside pg-boss send/fetch/complete, same jobs, same server",
  async run({ rounds, roundSeconds, log }) {
    const server = benchPostgresUrl();
    const suffix = `${process.pid}`;
    const dropLedger = await createPgDatabase(server, `bench_ledger_${suffix}`);
    const dropBoss = await createPgDatabase(server, `bench_pgboss_${suffix}`);
    const ledgerUrl = databaseUrl(server, `bench_ledger_${suffix}`);
    prepareDatabase(ledgerUrl);
    const { ledger: ledger } = await openBenchLedger(ledgerUrl, POOL_SIZE);
    const boss = new PgBoss({
      connectionString: databaseUrl(server, `bench_pgboss_${suffix}`),
      max: POOL_SIZE,
      supervise: false,
      schedule: false,
    });
    boss.on("error", (error) => log(`pg-boss: ${String(error)}`));
    const ledgerRates: number[] = [];
    const bossRates: number[] = [];
    const ratios: number[] = [];
    const shortRates: number[] = [];
    const shortRatios: number[] = [];
    let jobs = 0;
    try {
      await boss.start();
      await boss.createQueue(QUEUE);
      // The warm-up also sizes the rounds: as many jobs as the ledger completes in a round, the same number for
      // pg-boss.
      const t0 = performance.now();
      const warm = await runAgents(AGENTS, Date.now() + WARM_UP_SECONDS * 1000, (agent, n) =>
        ledgerLifecycle(ledger, agent, -1 - n),
      );
      jobs = Math.max(AGENTS * 10, Math.round((warm / ((performance.now() - t0) / 1000)) * roundSeconds));
      await runAgents(AGENTS, Date.now() + WARM_UP_SECONDS * 1000, (agent, n) => bossJob(boss, agent, -1 - n));
      for (let round = 1; round <= rounds; round++) {
        const ledgerSeconds = await runCount(AGENTS, jobs, (agent, n) =>
          ledgerLifecycle(ledger, agent, round * 1_000_000 + n),
        );
        const bossSeconds = await runCount(AGENTS, jobs, (agent, n) => bossJob(boss, agent, round * 1_000_000 + n));
        const shortSeconds = await runCount(AGENTS, jobs, (agent, n) =>
          ledgerLifecycleClaimOnPlan(ledger, agent, round * 1_000_000 + 500_000 + n),
        );
        shortRates.push(jobs / shortSeconds);
        shortRatios.push(bossSeconds / shortSeconds);
        ledgerRates.push(jobs / ledgerSeconds);
        bossRates.push(jobs / bossSeconds);
        ratios.push(bossSeconds / ledgerSeconds);
        log(
          `round ${round}: ${jobs} jobs each; ledger ${(jobs / ledgerSeconds).toFixed(0)}/s, pg-boss ${(jobs / bossSeconds).toFixed(0)}/s, ratio ${(bossSeconds / ledgerSeconds).toFixed(2)}; claim on plan ${(jobs / shortSeconds).toFixed(0)}/s, ratio ${(bossSeconds / shortSeconds).toFixed(2)}`,
        );
      }
    } finally {
      await boss.stop({ graceful: false, wait: true }).catch(() => undefined);
      await ledger.close();
      await dropLedger();
      await dropBoss();
    }
    return {
      figures: [
        { label: "ledger lifecycles/s (PostgreSQL)", unit: "1/s", rounds: ledgerRates },
        { label: "pg-boss jobs/s (send, fetch, complete)", unit: "1/s", rounds: bossRates },
        { label: "ledger / pg-boss", unit: "ratio", rounds: ratios },
        { label: "ledger, claim on plan (3 steps), lifecycles/s", unit: "1/s", rounds: shortRates },
        { label: "claim on plan / pg-boss", unit: "ratio", rounds: shortRatios },
      ],
      targets: [
        {
          label: "ledger at least as fast as pg-boss",
          figure: "ledger / pg-boss",
          statistic: "median",
          comparison: ">=",
          limit: 1,
        },
        {
          label: "ledger with the claim on the plan at least as fast as pg-boss",
          figure: "claim on plan / pg-boss",
          statistic: "median",
          comparison: ">=",
          limit: 1,
        },
      ],
      notes: {
        server: server.replace(/\/\/[^@/]*@/, "//***@"),
        jobsPerRound: jobs,
        agents: AGENTS,
        poolSize: POOL_SIZE,
        pgBoss:
          "pg-boss 10.4.2 (the last release for Node 20), its own database, supervise and schedule off, default queue policy",
        ledger:
          "planOperation, claimLease (fence), dispatchOperation, reportOutcome confirmed, called in-process on the ledger store's pipelined connections (batched commands); claim on plan: planOperation with claim, then dispatch and outcome",
      },
    };
  },
};
