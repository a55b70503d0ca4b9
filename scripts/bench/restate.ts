// Benchmark: one tool call made durable by Restate (a service whose handler wraps the provider call in one `ctx.run`,
// invoked through the ingress with an idempotency key) beside the same tool call through opledger's HTTP API (claim on
// plan, dispatch, the provider call, outcome), on SQLite and on a durable PostgreSQL; 16 closed-loop clients each.
import path from "node:path";
import { startBenchServer, buildIfStale, putBenchContract, type BenchServer } from "./bench-server";
import { ProviderClient, startProvider, type BenchProvider } from "./bench-provider";
import { startListening, type BenchProcess } from "./child-process";
import { createPgDatabase, databaseUrl, freshSqlite } from "./databases";
import { HttpLoad, type Send } from "./http-load";
import { httpLifecycleClaimOnPlan } from "./lifecycle-http";
import { ensurePeers, peerVersion } from "./peers";
import { perCall } from "./per-call";
import { pgCounters } from "./pg-work";
import { startThrowawayCluster, durabilityOf, type ThrowawayCluster } from "./pg-throwaway";
import { ownCpuMs, treeCpuMs } from "./process-cpu";
import { metricTotal } from "./prometheus-text";
import {
  RESTATE_HANDLER,
  RESTATE_SERVICE,
  registerDeployment,
  startRestateServer,
  type RestateServer,
} from "./restate-server";
import { RoundFigures, runRotated } from "./rounds";
import { percentile } from "./stats";
import { countSyscalls } from "./strace-count";
import type { BenchModule, TargetCheck } from "./types";
import { AGENTS, benchArgs } from "./workload";

const WARM_UP_SECONDS = 3;
/** The pass that counts each side's work runs under strace (which slows the traced processes), untimed. */
const COUNT_SECONDS = 4;
const FLUSHES = ["fsync", "fdatasync"];

/** One contender: how a client makes the tool call, and the processes whose CPU it costs (besides the clients). */
interface Side {
  load: HttpLoad;
  call(send: Send, agent: number, n: number): Promise<void>;
  /** Process ids by role (server, service, PostgreSQL, provider), each counted with its descendants. */
  processes: Record<string, number>;
  /** The process tree whose flushes are counted (the one that writes the durable record). */
  writer: number;
  /** Counters of the side's own (Restate's metrics, PostgreSQL's statistics), read before and after the counted pass. */
  counters?: () => Promise<Record<string, number>>;
}

const SIDES = ["Restate", "opledger SQLite", "opledger PostgreSQL"] as const;
type SideName = (typeof SIDES)[number];

function cpuMs(side: Side): Record<string, number> {
  return {
    ...Object.fromEntries(Object.entries(side.processes).map(([role, pid]) => [role, treeCpuMs(pid)])),
    clients: ownCpuMs(),
  };
}

/** One timed round of a side: calls/s, per-call p50 and p99, CPU per call of each process. */
async function timedRound(side: Side, seconds: number, base: number) {
  const latencies: number[] = [];
  const before = cpuMs(side);
  const round = await side.load.round(AGENTS, seconds, async (send, agent, n) => {
    const started = performance.now();
    await side.call(send, agent, base + n);
    latencies.push(performance.now() - started);
  });
  return {
    rate: round.scenarios / round.seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpuPerCall: perCall(before, cpuMs(side), round.scenarios),
  };
}

/** The untimed pass: flushes (strace), HTTP requests, provider calls and the side's own counters, per tool call. */
async function countWork(side: Side, provider: BenchProvider, base: number): Promise<Record<string, number>> {
  const before = { ...(await side.counters?.()), providerCalls: await provider.calls() };
  const { result: round, counts } = await countSyscalls(side.writer, FLUSHES, () =>
    side.load.round(AGENTS, COUNT_SECONDS, (send, agent, n) => side.call(send, agent, base + n)),
  );
  const after = { ...(await side.counters?.()), providerCalls: await provider.calls() };
  return {
    calls: round.scenarios,
    clientRequests: round.requests / round.scenarios,
    ...perCall(before, after, round.scenarios),
    ...perCall({}, counts, round.scenarios),
  };
}

/** Restate's own counters of the durable work: log records, the log server's write batches, RocksDB's WAL syncs. */
async function restateCounters(server: RestateServer): Promise<Record<string, number>> {
  const text = await (await fetch(server.metricsUrl)).text();
  return {
    logRecordsCommitted: metricTotal(text, "restate_bifrost_sequencer_committed_records_total"),
    logServerWriteBatches: metricTotal(text, "restate_log_server_write_batch_size_bytes_count"),
    rocksdbWalSyncs: metricTotal(text, "restate_rocksdb_wal_synced_total"),
    rocksdbWalWrites: metricTotal(text, "restate_rocksdb_write_wal_total"),
    serviceStreamsOpened: metricTotal(text, "restate_connection_pool_stream_opened_total"),
  };
}

/** What the table prints for a side (one figure per round each). */
function recordSide(figures: RoundFigures, name: SideName, r: Awaited<ReturnType<typeof timedRound>>): void {
  figures.record(`${name} tool calls/s`, "1/s", r.rate);
  figures.record(`${name} call p50`, "ms", r.p50);
  figures.record(`${name} call p99`, "ms", r.p99);
  for (const [role, ms] of Object.entries(r.cpuPerCall)) figures.record(`${name} CPU per call, ${role}`, "ms", ms);
}

const TARGETS: TargetCheck[] = [
  {
    label: "opledger HTTP tool calls/s (SQLite) at least Restate's invocations with one ctx.run/s",
    figure: "opledger SQLite / Restate calls/s",
    statistic: "median",
    comparison: ">=",
    limit: 1,
  },
  {
    label: "opledger HTTP tool call p99 (SQLite) at most Restate's p99",
    figure: "opledger SQLite p99 / Restate p99",
    statistic: "median",
    comparison: "<=",
    limit: 1,
  },
];

export const benchmark: BenchModule = {
  name: "restate",
  title:
    "a tool call made durable by Restate (one ctx.run) beside the same call through opledger's HTTP API, SQLite and PostgreSQL",
  async run({ rounds, roundSeconds, ports, workDir, reuseBuild, log }) {
    ensurePeers(log);
    buildIfStale({ reuseBuild, log });
    if (ports.length < 8) throw new Error("the restate benchmark needs 8 ports");
    const [sqlitePort, pgPort, providerPort, servicePort, ingressPort, adminPort, nodePort, clusterPort] = ports as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const stops: (() => Promise<void> | void)[] = [];
    const figures = new RoundFigures();
    const orders: string[][] = [];
    const work: Record<string, Record<string, number>> = {};
    const notes: Record<string, unknown> = {};
    try {
      const provider = await startProvider(providerPort, log);
      stops.push(() => provider.stop());
      const restate = await startRestateServer([ingressPort, adminPort, nodePort], workDir, log);
      stops.push(() => restate.stop());
      const service: BenchProcess = await startListening(
        "restate service",
        path.join(__dirname, "children", "restate-service.ts"),
        [String(servicePort), provider.url],
        // The SDK logs every invocation at info; the opledger server logs none either.
        { RESTATE_LOGGING: "WARN" },
        log,
      );
      stops.push(() => service.stop());
      await registerDeployment(restate.adminUrl, service.url);

      const sqlite: BenchServer = await startBenchServer(freshSqlite(workDir, "peers"), sqlitePort, log);
      stops.push(() => sqlite.stop());
      const cluster: ThrowawayCluster = startThrowawayCluster(clusterPort, true);
      stops.push(() => cluster.stop());
      const pgUrl = databaseUrl(cluster.url, `bench_peers_${process.pid}`);
      await createPgDatabase(cluster.url, `bench_peers_${process.pid}`);
      const postgres: BenchServer = await startBenchServer(pgUrl, pgPort, log);
      stops.push(() => postgres.stop());
      for (const server of [sqlite, postgres]) await putBenchContract(server);

      const agentsProvider = new ProviderClient(provider.url, AGENTS);
      stops.push(() => agentsProvider.close());
      const opledgerCall =
        (prefix: string) =>
        (send: Send, agent: number, n: number): Promise<void> =>
          httpLifecycleClaimOnPlan(send, agent, n, {
            idempotencyKey: `${prefix}-${agent}-${n}`,
            effect: (args) => agentsProvider.charge(args),
          });
      const load = (url: string, key: string | null): HttpLoad => {
        const created = new HttpLoad(url, AGENTS, key);
        stops.push(() => created.close());
        return created;
      };
      const sides: Record<SideName, Side> = {
        Restate: {
          load: load(restate.ingressUrl, null),
          async call(send, agent, n) {
            const answer = (await send({
              method: "POST",
              path: `/${RESTATE_SERVICE}/${RESTATE_HANDLER}`,
              body: benchArgs(agent, n),
              headers: { "idempotency-key": `restate-${agent}-${n}` },
              expect: 200,
            })) as { providerId?: string };
            if (!answer.providerId)
              throw new Error(`Restate answered without a provider id: ${JSON.stringify(answer)}`);
          },
          processes: { server: restate.pid, service: service.pid, provider: provider.pid },
          writer: restate.pid,
          counters: () => restateCounters(restate),
        },
        "opledger SQLite": {
          load: load(sqlite.url, sqlite.apiKey),
          call: opledgerCall("sqlite"),
          processes: { server: sqlite.pid, provider: provider.pid },
          writer: sqlite.pid,
        },
        "opledger PostgreSQL": {
          load: load(postgres.url, postgres.apiKey),
          call: opledgerCall("pg"),
          processes: { server: postgres.pid, PostgreSQL: cluster.pid(), provider: provider.pid },
          writer: cluster.pid(),
          counters: () => pgCounters(pgUrl),
        },
      };

      for (const name of SIDES) await timedRound(sides[name], WARM_UP_SECONDS, 9_000_000);
      for (let round = 1; round <= rounds; round++) {
        const { results, order } = await runRotated(
          {
            Restate: () => timedRound(sides.Restate, roundSeconds, round * 1_000_000),
            "opledger SQLite": () => timedRound(sides["opledger SQLite"], roundSeconds, round * 1_000_000),
            "opledger PostgreSQL": () => timedRound(sides["opledger PostgreSQL"], roundSeconds, round * 1_000_000),
          },
          round,
        );
        orders.push(order);
        for (const name of SIDES) recordSide(figures, name, results[name]);
        const { Restate: peer, "opledger SQLite": lite, "opledger PostgreSQL": pg } = results;
        figures.record("opledger SQLite / Restate calls/s", "ratio", lite.rate / peer.rate);
        figures.record("opledger SQLite p99 / Restate p99", "ratio", lite.p99 / peer.p99);
        figures.record("opledger PostgreSQL / Restate calls/s", "ratio", pg.rate / peer.rate);
        figures.record("opledger PostgreSQL p99 / Restate p99", "ratio", pg.p99 / peer.p99);
        log(
          `round ${round} (${order.join(", ")}): ` +
            `${order.map((name) => `${name} ${results[name].rate.toFixed(0)}/s, p99 ${results[name].p99.toFixed(1)} ms`).join("; ")}`,
        );
      }
      for (const name of SIDES) {
        work[name] = await countWork(sides[name], provider, 8_000_000);
        log(
          `work per call, ${name}: ${JSON.stringify(work[name], (_, v: unknown) => (typeof v === "number" ? Number(v.toFixed(3)) : v))}`,
        );
      }
      notes.restateDurability = restate.durability;
      notes.postgresDurability = await durabilityOf(pgUrl);
    } finally {
      for (const stop of stops.reverse()) {
        try {
          await stop();
        } catch (error) {
          log(`stopping: ${String(error)}`);
        }
      }
    }
    return {
      figures: figures.list(),
      targets: TARGETS,
      notes: {
        ...notes,
        roundOrders: orders,
        workPerCall: work,
        agents: AGENTS,
        versions: {
          "@restatedev/restate-server": peerVersion("@restatedev/restate-server"),
          "@restatedev/restate-sdk": peerVersion("@restatedev/restate-sdk"),
        },
        restate:
          `restate-server as a throwaway (scratch base directory, default configuration, telemetry off), one ` +
          `node; a Node service on @restatedev/restate-sdk (HTTP/2, registered through the admin API) whose handler ` +
          `makes the provider call in one ctx.run; each client POSTs /${RESTATE_SERVICE}/${RESTATE_HANDLER} on the ` +
          `ingress with an idempotency-key header and waits for the result`,
        opledger:
          "the production server (npm run serve: scripts/serve.ts, scripts/launch.ts, scripts/next-server.mjs) on a " +
          "fresh SQLite file (WAL, synchronous=FULL) and on a database of a durable throwaway PostgreSQL 15 cluster " +
          "(initdb defaults); each agent POSTs /operations with the claim and an idempotency key, /dispatch, the " +
          "provider call, /outcome confirmed",
        provider:
          "a Node process of its own answering POST /charges with a new id, called through the same undici client by " +
          "opledger's agents and by the Restate service",
        loadGenerator:
          "undici Pool, one keep-alive connection per client, closed loop, in the runner's process (the 'clients' CPU)",
        workCounting:
          `an untimed pass of ${COUNT_SECONDS} s per side after the rounds, strace -f -c -e ` +
          `trace=${FLUSHES.join(",")} attached to the writer's process tree (restate-server; the opledger SQLite server; ` +
          `the PostgreSQL postmaster and its backends), Restate's /metrics and PostgreSQL's pg_stat_wal / ` +
          `pg_stat_database / transaction ids read before and after`,
      },
    };
  },
};
