// Benchmark: MCP tools/call through the gateway beside the same calls made directly to the same test upstream over HTTP.
import fs from "node:fs";
import path from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ContractBody } from "@/lib/ledger/contracts/contract-schema";
import { buildIfStale, startBenchServer, type BenchServer } from "./bench-server";
import { startListening, type BenchProcess } from "./child-process";
import { freshSqlite } from "./databases";
import { McpLoad, type McpRound, type McpScenario, type ToolCall } from "./mcp-load";
import { treeCpuMs } from "./process-cpu";
import { RoundFigures, runRotated } from "./rounds";
import { percentile } from "./stats";
import type { BenchModule, TargetCheck } from "./types";
import { AGENTS } from "./workload";

const WARM_UP_SECONDS = 3;
const UPSTREAM = "test";
const UPSTREAM_SCRIPT = path.join("e2e", "mcp", "test-upstream.ts");
const FORWARDER_SCRIPT = path.join("scripts", "bench", "mcp-forwarder.ts");

/** A PURE read: a failed call may simply be made again; each call's key is its arguments within the client's run. */
const LOOKUP_CONTRACT: ContractBody = {
  effect: "PURE",
  idempotencyKey: "unsupported",
  reconcile: null,
  approval: "not_required",
  maxAttempts: 3,
  backoff: { baseMs: 100, maxMs: 2000 },
  description: "npm run bench: the test upstream's lookup.",
};

/** A NON_RETRYABLE charge keyed per call by its customer (every benchmarked call charges a new customer). */
const CHARGE_CONTRACT: ContractBody = {
  effect: "NON_RETRYABLE",
  idempotencyKey: "unsupported",
  reconcile: { method: "manual" },
  approval: "not_required",
  maxAttempts: 1,
  backoff: { baseMs: 100, maxMs: 2000 },
  keyFrom: "charge:{customer}",
  description: "npm run bench: the test upstream's charge, without its effects file.",
};

/** The repository's test upstream over Streamable HTTP on a free loopback port, without any effects or calls file. */
function startTestUpstream(log: (line: string) => void): Promise<BenchProcess> {
  // Empty is unset for the test upstream: no effects file (nothing fsynced), no calls file, no control file.
  const env = { TEST_UPSTREAM_EFFECTS: "", TEST_UPSTREAM_CALLS: "", TEST_UPSTREAM_CONTROL: "" };
  return startListening("upstream", UPSTREAM_SCRIPT, ["--http", "0"], env, log);
}

async function putContract(server: BenchServer, tool: string, body: ContractBody): Promise<void> {
  const response = await fetch(`${server.url}/api/v1/contracts/${tool}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${server.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`PUT contract ${tool} answered ${response.status}: ${await response.text()}`);
}

const answered = (result: CallToolResult): string | null =>
  result.isError ? `answered isError: ${JSON.stringify(result.content)}` : null;

/** Executed through the gateway as a new operation: confirmed, with its operation, not served from the ledger. */
const executed = (result: CallToolResult): string | null =>
  answered(result) ??
  (typeof result._meta?.["opledger/operation"] !== "string" ? "answered without its operation" : null) ??
  (result._meta?.["opledger/replayed"] === true ? "was answered from the ledger, not executed" : null);

const replayed = (result: CallToolResult): string | null =>
  answered(result) ?? (result._meta?.["opledger/replayed"] === true ? null : "was executed again, not replayed");

/** A tool's calls, direct (the upstream's own name) or through the gateway (`test__<tool>`), each with new arguments. */
function scenario(tool: "lookup" | "charge", gateway: boolean, tag: string): McpScenario {
  const name = gateway ? `${UPSTREAM}__${tool}` : tool;
  return {
    call: (agent, n) => ({
      name,
      arguments:
        tool === "lookup" ? { id: `${tag}-${agent}-${n}` } : { customer: `cus-${tag}-${agent}-${n}`, amount: 100 + n },
    }),
    problem: gateway ? executed : answered,
  };
}

/**
 * A warm-up lookup under a key of the client's own: the same key is the same operation, always, so its repeat is
 * answered from the ledger (under the default key a repeat after a delivered answer is a new call: docs/mcp.md).
 */
function keyedLookup(agent: number, n: number): ToolCall {
  const id = `warm-${agent}-${n}`;
  return { name: `${UPSTREAM}__lookup`, arguments: { id }, _meta: { "opledger/idempotencyKey": `bench:${id}` } };
}

/** The same calls again: each client repeats the lookups it made through the gateway in the warm-up, by their keys. */
function replayScenario(made: readonly number[]): McpScenario {
  return { call: (agent, n) => keyedLookup(agent, n % (made[agent] ?? 1)), problem: replayed };
}

const rate = (r: McpRound): number => r.calls / r.seconds;

/** The processes whose CPU time a round measures, by the name its figures give them, beside the runner's clients. */
type Processes = Record<string, number>;

/** A round and the CPU time each process used per call in it: where the time goes on a machine whose cores are shared. */
interface Measured extends McpRound {
  cpuMsPerCall: Record<string, number>;
}

async function measured(pids: Processes, run: () => Promise<McpRound>): Promise<Measured> {
  const clients = process.cpuUsage();
  const before = Object.entries(pids).map(([name, pid]) => [name, pid, treeCpuMs(pid)] as const);
  const round = await run();
  const used = process.cpuUsage(clients);
  const perCall = (ms: number) => ms / round.calls;
  return {
    ...round,
    cpuMsPerCall: {
      "MCP clients": perCall((used.user + used.system) / 1000),
      ...Object.fromEntries(before.map(([name, pid, cpu]) => [name, perCall(treeCpuMs(pid) - cpu)])),
    },
  };
}

function recordRound(figures: RoundFigures, what: string, r: Measured): void {
  figures.record(`${what} calls/s`, "1/s", rate(r));
  figures.record(`${what} p50`, "ms", percentile(r.latenciesMs, 50));
  figures.record(`${what} p99`, "ms", percentile(r.latenciesMs, 99));
  for (const [name, ms] of Object.entries(r.cpuMsPerCall)) figures.record(`${what} CPU per call, ${name}`, "ms", ms);
}

/** Beside the direct calls of the same round: the rate ratio and the time added at p50 and p99. */
function recordAgainst(figures: RoundFigures, what: string, direct: McpRound, through: McpRound): void {
  const p = (r: McpRound, q: number) => percentile(r.latenciesMs, q);
  figures.record(`${what} / direct calls/s`, "ratio", rate(through) / rate(direct));
  figures.record(`${what} added p50`, "ms", p(through, 50) - p(direct, 50));
  figures.record(`${what} added p99`, "ms", p(through, 99) - p(direct, 99));
}

/** The targets for one tool: through-gateway rate ≥ 0.70 of direct, added p50 ≤ 5 ms (checked as < 5 ms). */
function targetsFor(what: string): TargetCheck[] {
  return [
    {
      label: `${what} through the gateway at least 70% of the direct call rate`,
      figure: `${what} through the gateway / direct calls/s`,
      statistic: "median",
      comparison: ">=",
      limit: 0.7,
    },
    {
      label: `${what} through the gateway adds under 5 ms at p50`,
      figure: `${what} through the gateway added p50`,
      statistic: "median",
      comparison: "<",
      limit: 5,
    },
  ];
}

function summary(label: string, r: McpRound): string {
  return `${label} ${rate(r).toFixed(0)}/s p50 ${percentile(r.latenciesMs, 50).toFixed(1)} ms`;
}

export const benchmark: BenchModule = {
  name: "mcp-gateway",
  title: "MCP tools/call through the gateway beside the same calls direct to the same HTTP upstream (16 clients)",
  async run({ rounds, roundSeconds, ports, workDir, reuseBuild, log }) {
    buildIfStale({ reuseBuild, log });
    const upstream = await startTestUpstream(log);
    const forwarder = await startListening("forwarder", FORWARDER_SCRIPT, [upstream.url], {}, log).catch(
      async (error: unknown) => {
        await upstream.stop();
        throw error;
      },
    );
    const upstreamsFile = path.join(workDir, "upstreams.json");
    fs.writeFileSync(upstreamsFile, JSON.stringify({ upstreams: { [UPSTREAM]: { url: upstream.url } } }));
    const server = await startBenchServer(freshSqlite(workDir, "mcp"), ports[0] ?? 3400, log, {
      OPLEDGER_MCP_UPSTREAMS: upstreamsFile,
      OPLEDGER_OUTBOUND_ALLOW_PRIVATE: "on",
    }).catch(async (error: unknown) => {
      await forwarder.stop();
      await upstream.stop();
      throw error;
    });
    const loads: McpLoad[] = [];
    const figures = new RoundFigures();
    const orders: string[][] = [];
    try {
      await putContract(server, `${UPSTREAM}__lookup`, LOOKUP_CONTRACT);
      await putContract(server, `${UPSTREAM}__charge`, CHARGE_CONTRACT);
      const direct = await McpLoad.connect(upstream.url, AGENTS);
      loads.push(direct);
      const gateway = await McpLoad.connect(`${server.url}/mcp`, AGENTS, server.apiKey);
      loads.push(gateway);
      const oneDirect = await McpLoad.connect(upstream.url, 1);
      loads.push(oneDirect);
      const oneGateway = await McpLoad.connect(`${server.url}/mcp`, 1, server.apiKey);
      loads.push(oneGateway);
      const forwarded = await McpLoad.connect(forwarder.url, AGENTS);
      loads.push(forwarded);

      const pids: Processes = { upstream: upstream.pid, "opledger server": server.pid };
      const forwarderPids: Processes = { upstream: upstream.pid, "bare forwarder": forwarder.pid };
      const made = Array.from({ length: AGENTS }, () => 0);
      const warmGateway = scenario("lookup", true, "warm");
      await direct.round(WARM_UP_SECONDS, scenario("lookup", false, "warm"));
      await gateway.round(WARM_UP_SECONDS, {
        ...warmGateway,
        call: (agent, n) => {
          made[agent] = n + 1;
          return keyedLookup(agent, n);
        },
      });
      await forwarded.round(WARM_UP_SECONDS, scenario("lookup", false, "warm-forwarded"));
      await direct.round(WARM_UP_SECONDS, scenario("charge", false, "warm"));
      await gateway.round(WARM_UP_SECONDS, scenario("charge", true, "warm"));
      await oneGateway.round(1, scenario("lookup", true, "warm-one"));

      for (let round = 1; round <= rounds; round++) {
        const lookups = await runRotated(
          {
            direct: () => measured(pids, () => direct.round(roundSeconds, scenario("lookup", false, `r${round}`))),
            gateway: () => measured(pids, () => gateway.round(roundSeconds, scenario("lookup", true, `r${round}`))),
            replay: () => measured(pids, () => gateway.round(roundSeconds, replayScenario(made))),
            forwarder: () =>
              measured(forwarderPids, () => forwarded.round(roundSeconds, scenario("lookup", false, `fwd-r${round}`))),
          },
          round,
        );
        const charges = await runRotated(
          {
            direct: () => measured(pids, () => direct.round(roundSeconds, scenario("charge", false, `r${round}`))),
            gateway: () => measured(pids, () => gateway.round(roundSeconds, scenario("charge", true, `r${round}`))),
          },
          round,
        );
        const ones = await runRotated(
          {
            direct: () =>
              measured(pids, () => oneDirect.round(roundSeconds / 2, scenario("lookup", false, `one-r${round}`))),
            gateway: () =>
              measured(pids, () => oneGateway.round(roundSeconds / 2, scenario("lookup", true, `one-r${round}`))),
          },
          round,
        );
        orders.push([
          ...lookups.order.map((name) => `lookup ${name}`),
          ...charges.order.map((name) => `charge ${name}`),
          ...ones.order.map((name) => `one client ${name}`),
        ]);
        const l = lookups.results;
        const c = charges.results;
        const o = ones.results;
        recordRound(figures, "lookup direct", l.direct);
        recordRound(figures, "lookup through the gateway", l.gateway);
        recordAgainst(figures, "lookup through the gateway", l.direct, l.gateway);
        recordRound(figures, "lookup replayed from the ledger", l.replay);
        recordAgainst(figures, "lookup replayed from the ledger", l.direct, l.replay);
        recordRound(figures, "lookup through a bare forwarder", l.forwarder);
        recordAgainst(figures, "lookup through a bare forwarder", l.direct, l.forwarder);
        recordRound(figures, "charge direct", c.direct);
        recordRound(figures, "charge through the gateway", c.gateway);
        recordAgainst(figures, "charge through the gateway", c.direct, c.gateway);
        recordRound(figures, "lookup direct, one client", o.direct);
        recordRound(figures, "lookup through the gateway, one client", o.gateway);
        recordAgainst(figures, "lookup through the gateway, one client", o.direct, o.gateway);
        log(
          `round ${round} (${orders.at(-1)?.join(", ")}): ${[
            summary("lookup direct", l.direct),
            summary("gateway", l.gateway),
            summary("replay", l.replay),
            summary("bare forwarder", l.forwarder),
            summary("charge direct", c.direct),
            summary("gateway", c.gateway),
            summary("one client direct", o.direct),
            summary("gateway", o.gateway),
          ].join("; ")}`,
        );
      }
    } finally {
      for (const load of loads) await load.close();
      await server.stop();
      await forwarder.stop();
      await upstream.stop();
    }
    return {
      figures: figures.list(),
      targets: [...targetsFor("lookup"), ...targetsFor("charge")],
      notes: {
        roundOrders: orders,
        clients: AGENTS,
        upstream: `${UPSTREAM_SCRIPT} --http 0 (Streamable HTTP on 127.0.0.1), no effects, calls or control file: charge writes nothing, lookup reads nothing`,
        direct: `${AGENTS} SDK Clients (Streamable HTTP), each initialized once, calling the upstream's lookup / charge in a closed loop`,
        gateway: `${AGENTS} SDK Clients of POST /mcp with the bootstrap key, calling test__lookup / test__charge; the gateway's upstream is the same process as a url upstream (OPLEDGER_OUTBOUND_ALLOW_PRIVATE=on)`,
        lookupContract: LOOKUP_CONTRACT,
        chargeContract: CHARGE_CONTRACT,
        newOperations:
          "every call has arguments no earlier call had (lookup id / charge customer per round, client and call), so each is a new operation: plan with claim, dispatch, upstream call, outcome",
        replay:
          "each client repeats the lookups it made through the gateway in the warm-up, with the same explicit keys (_meta.opledger/idempotencyKey): answered from the ledger with _meta.opledger/replayed, the upstream not called",
        forwarder: `${FORWARDER_SCRIPT}: ${AGENTS} SDK Clients of a Node HTTP server that only forwards tools/call to the same upstream over one SDK Client (the SDK's stateless Streamable HTTP transport and a low-level Server per request, no ledger, no key, no Next): the floor any MCP gateway on this machine starts from`,
        oneClient: `one client each way for half of --seconds: the added time without queueing behind ${AGENTS} clients`,
        addedTime: "the gateway's percentile minus the direct calls' percentile in the same round",
        cpuPerCall:
          "CPU time (user + system) per call used by the runner's MCP clients (process.cpuUsage), the test upstream and the opledger server or the bare forwarder (/proc/PID/stat of each process tree) during the contender's round",
        database: "fresh SQLite file, WAL, synchronous=FULL",
      },
    };
  },
};
