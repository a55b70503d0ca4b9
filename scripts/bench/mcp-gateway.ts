// Benchmark: MCP tools/call through the gateway beside the same calls made directly to the same test upstream over HTTP,
// through the bare SDK forwarder (the floor), and over stdio beside mcp-proxy in front of the same stdio upstream.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ContractBody } from "@/lib/ledger/contracts/contract-schema";
import { buildIfStale, REPO_ROOT, startBenchServer, type BenchServer } from "./bench-server";
import { startListening, type BenchProcess } from "./child-process";
import { freshSqlite } from "./databases";
import { McpLoad, type McpRound, type McpScenario, type ToolCall } from "./mcp-load";
import { mcpProxyVersion, startMcpProxy } from "./mcp-proxy-peer";
import { treeCpuMs } from "./process-cpu";
import { RoundFigures, runRotated } from "./rounds";
import { percentile } from "./stats";
import type { BenchModule, TargetCheck } from "./types";
import { AGENTS } from "./workload";

const WARM_UP_SECONDS = 3;
const UPSTREAM = "test";
/** The same test upstream over stdio, as the gateway's second upstream: its tools are `stdio__<tool>`. */
const STDIO_UPSTREAM = "stdio";
const UPSTREAM_SCRIPT = path.join("e2e", "mcp", "test-upstream.ts");
/** The test upstream over stdio, as both the gateway and mcp-proxy start it: Node with tsx, no effects file. */
const STDIO_COMMAND = [process.execPath, "--import", "tsx", path.join(REPO_ROOT, UPSTREAM_SCRIPT)];
/** Empty is unset for the test upstream: no effects file (nothing fsynced), no calls file, no control file. */
const QUIET_UPSTREAM_ENV = { TEST_UPSTREAM_EFFECTS: "", TEST_UPSTREAM_CALLS: "", TEST_UPSTREAM_CONTROL: "" };
const LOAD_AVERAGE = "1-minute load average at the end of the round";
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
  return startListening("upstream", UPSTREAM_SCRIPT, ["--http", "0"], QUIET_UPSTREAM_ENV, log);
}

/**
 * The gateway's upstreams: the HTTP test upstream as `test`, and the same program over stdio as `stdio` (started by the
 * gateway with the SDK's short environment, so without the effects file either: docs/mcp.md#upstreams).
 */
function writeUpstreamsFile(workDir: string, httpUrl: string): string {
  const file = path.join(workDir, "upstreams.json");
  const [command, ...args] = STDIO_COMMAND;
  const upstreams = { [UPSTREAM]: { url: httpUrl }, [STDIO_UPSTREAM]: { command, args, cwd: REPO_ROOT } };
  fs.writeFileSync(file, JSON.stringify({ upstreams }));
  return file;
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

/**
 * A tool's calls, each with new arguments: by the upstream's own name (direct, through the forwarder or mcp-proxy), or
 * through the gateway (`<upstream>__<tool>`, `test` unless `upstream` names the stdio one).
 */
function scenario(tool: "lookup" | "charge", gateway: boolean, tag: string, upstream = UPSTREAM): McpScenario {
  const name = gateway ? `${upstream}__${tool}` : tool;
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

const GATEWAY_CPU_RATIO = "gateway lookup: opledger server CPU per call / the bare forwarder's";
const GATEWAY_FORWARDER_RATE = "gateway lookup calls/s / bare forwarder calls/s";
const GATEWAY_PROXY_RATE = "gateway lookup calls/s / mcp-proxy calls/s (stdio upstream)";
const ONE_CLIENT_ADDED_P50 = "lookup through the gateway, one client added p50";

/** The gateway beside the floor and the peer, in the same round: the ratios issue #28's targets are checked on. */
function recordYardsticks(
  figures: RoundFigures,
  l: Record<"gateway" | "forwarder", Measured>,
  s: Record<"gateway" | "mcp-proxy", Measured>,
): void {
  figures.record(
    GATEWAY_CPU_RATIO,
    "ratio",
    (l.gateway.cpuMsPerCall["opledger server"] ?? Number.NaN) /
      (l.forwarder.cpuMsPerCall["bare forwarder"] ?? Number.NaN),
  );
  figures.record(GATEWAY_FORWARDER_RATE, "ratio", rate(l.gateway) / rate(l.forwarder));
  figures.record(GATEWAY_PROXY_RATE, "ratio", rate(s.gateway) / rate(s["mcp-proxy"]));
  figures.record(LOAD_AVERAGE, "", os.loadavg()[0] ?? Number.NaN);
}

/** Issue #28's targets for the gateway, each a ratio in one run but the last (an absolute time, with the load). */
const YARDSTICK_TARGETS: TargetCheck[] = [
  {
    label: "gateway tools/call: opledger server CPU per call / the bare forwarder's",
    figure: GATEWAY_CPU_RATIO,
    statistic: "median",
    comparison: "<=",
    limit: 1,
  },
  {
    label: `gateway calls/s / bare forwarder calls/s (${AGENTS} clients)`,
    figure: GATEWAY_FORWARDER_RATE,
    statistic: "median",
    comparison: ">=",
    limit: 0.9,
  },
  {
    label: `gateway calls/s / mcp-proxy calls/s (${AGENTS} clients, same stdio upstream)`,
    figure: GATEWAY_PROXY_RATE,
    statistic: "median",
    comparison: ">=",
    limit: 1,
  },
  {
    label: "gateway added p50 with one client",
    figure: ONE_CLIENT_ADDED_P50,
    statistic: "median",
    comparison: "<=",
    limit: 2,
    beside: LOAD_AVERAGE,
  },
];

function summary(label: string, r: McpRound): string {
  return `${label} ${rate(r).toFixed(0)}/s p50 ${percentile(r.latenciesMs, 50).toFixed(1)} ms`;
}

/** Stops the helper processes and the server, last started first. */
async function stopAll(started: { stop(): Promise<void> }[]): Promise<void> {
  for (const child of started.reverse()) await child.stop();
}

export const benchmark: BenchModule = {
  name: "mcp-gateway",
  title: "MCP tools/call through the gateway beside direct calls, the bare SDK forwarder and mcp-proxy (16 clients)",
  async run({ rounds, roundSeconds, ports, workDir, reuseBuild, log }) {
    buildIfStale({ reuseBuild, log });
    const started: { stop(): Promise<void> }[] = [];
    const start = async <T extends { stop(): Promise<void> }>(starting: Promise<T>): Promise<T> => {
      try {
        const child = await starting;
        started.push(child);
        return child;
      } catch (error) {
        await stopAll(started);
        throw error;
      }
    };
    const upstream = await start(startTestUpstream(log));
    const forwarder = await start(startListening("forwarder", FORWARDER_SCRIPT, [upstream.url], {}, log));
    const proxy = await start(startMcpProxy(ports[1] ?? 3401, STDIO_COMMAND, QUIET_UPSTREAM_ENV, log));
    const server = await start(
      startBenchServer(freshSqlite(workDir, "mcp"), ports[0] ?? 3400, log, {
        OPLEDGER_MCP_UPSTREAMS: writeUpstreamsFile(workDir, upstream.url),
        OPLEDGER_OUTBOUND_ALLOW_PRIVATE: "on",
      }),
    );
    const loads: McpLoad[] = [];
    const figures = new RoundFigures();
    const orders: string[][] = [];
    try {
      await putContract(server, `${UPSTREAM}__lookup`, LOOKUP_CONTRACT);
      await putContract(server, `${UPSTREAM}__charge`, CHARGE_CONTRACT);
      await putContract(server, `${STDIO_UPSTREAM}__lookup`, LOOKUP_CONTRACT);
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
      const proxied = await McpLoad.connect(proxy.url, AGENTS);
      loads.push(proxied);

      const pids: Processes = { upstream: upstream.pid, "opledger server": server.pid };
      const forwarderPids: Processes = { upstream: upstream.pid, "bare forwarder": forwarder.pid };
      // Over stdio the upstream is a child of the gateway's server and of mcp-proxy: each tree holds its own.
      const stdioPids: Processes = { "opledger server with its stdio upstream": server.pid };
      const proxyPids: Processes = { "mcp-proxy with its stdio upstream": proxy.pid };
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
      await gateway.round(WARM_UP_SECONDS, scenario("lookup", true, "warm-stdio", STDIO_UPSTREAM));
      await proxied.round(WARM_UP_SECONDS, scenario("lookup", false, "warm-proxied"));
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
        const stdio = await runRotated(
          {
            gateway: () =>
              measured(stdioPids, () =>
                gateway.round(roundSeconds, scenario("lookup", true, `stdio-r${round}`, STDIO_UPSTREAM)),
              ),
            "mcp-proxy": () =>
              measured(proxyPids, () => proxied.round(roundSeconds, scenario("lookup", false, `proxy-r${round}`))),
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
          ...stdio.order.map((name) => `stdio lookup ${name}`),
          ...charges.order.map((name) => `charge ${name}`),
          ...ones.order.map((name) => `one client ${name}`),
        ]);
        const l = lookups.results;
        const s = stdio.results;
        const c = charges.results;
        const o = ones.results;
        recordRound(figures, "lookup direct", l.direct);
        recordRound(figures, "lookup through the gateway", l.gateway);
        recordAgainst(figures, "lookup through the gateway", l.direct, l.gateway);
        recordRound(figures, "lookup replayed from the ledger", l.replay);
        recordAgainst(figures, "lookup replayed from the ledger", l.direct, l.replay);
        recordRound(figures, "lookup through a bare forwarder", l.forwarder);
        recordAgainst(figures, "lookup through a bare forwarder", l.direct, l.forwarder);
        recordRound(figures, "stdio lookup through the gateway", s.gateway);
        recordRound(figures, "stdio lookup through mcp-proxy", s["mcp-proxy"]);
        recordRound(figures, "charge direct", c.direct);
        recordRound(figures, "charge through the gateway", c.gateway);
        recordAgainst(figures, "charge through the gateway", c.direct, c.gateway);
        recordRound(figures, "lookup direct, one client", o.direct);
        recordRound(figures, "lookup through the gateway, one client", o.gateway);
        recordAgainst(figures, "lookup through the gateway, one client", o.direct, o.gateway);
        recordYardsticks(figures, l, s);
        log(
          `round ${round} (${orders.at(-1)?.join(", ")}): ${[
            summary("lookup direct", l.direct),
            summary("gateway", l.gateway),
            summary("replay", l.replay),
            summary("bare forwarder", l.forwarder),
            summary("stdio gateway", s.gateway),
            summary("mcp-proxy", s["mcp-proxy"]),
            summary("charge direct", c.direct),
            summary("gateway", c.gateway),
            summary("one client direct", o.direct),
            summary("gateway", o.gateway),
          ].join("; ")}; load average ${os.loadavg()[0]?.toFixed(1)}`,
        );
      }
    } finally {
      for (const load of loads) await load.close();
      await stopAll(started);
    }
    return {
      figures: figures.list(),
      targets: [...YARDSTICK_TARGETS, ...targetsFor("lookup"), ...targetsFor("charge")],
      notes: {
        roundOrders: orders,
        clients: AGENTS,
        upstream:
          `${UPSTREAM_SCRIPT} --http 0 (Streamable HTTP on 127.0.0.1), no effects, calls or control file: charge ` +
          `writes nothing, lookup reads nothing`,
        direct: `${AGENTS} SDK Clients (Streamable HTTP), each initialized once, calling the upstream's lookup / charge in a closed loop`,
        gateway:
          `${AGENTS} SDK Clients of POST /mcp with the bootstrap key, calling test__lookup / test__charge; the ` +
          `gateway's upstream is the same process as a url upstream (OPLEDGER_OUTBOUND_ALLOW_PRIVATE=on)`,
        server:
          "the production server as npm run serve starts it: scripts/serve.ts, scripts/launch.ts, " +
          "scripts/next-server.mjs (CPU of next-server.mjs's process tree)",
        lookupContract: LOOKUP_CONTRACT,
        chargeContract: CHARGE_CONTRACT,
        newOperations:
          "every call has arguments no earlier call had (lookup id / charge customer per round, client and call), so " +
          "each is a new operation: plan with claim, dispatch, upstream call, outcome",
        replay:
          "each client repeats the lookups it made through the gateway in the warm-up, with the same explicit keys " +
          "(_meta.opledger/idempotencyKey): answered from the ledger with _meta.opledger/replayed, the upstream not called",
        forwarder:
          `${FORWARDER_SCRIPT}: ${AGENTS} SDK Clients of a Node HTTP server that only forwards tools/list and ` +
          `tools/call to the same upstream over one kept SDK Client; a session per client (the SDK's Streamable HTTP ` +
          `server transport with a session id, JSON answers, a low-level Server per session); no ledger, no key, no ` +
          `Next: the floor any MCP gateway on this machine starts from`,
        stdio:
          `the same test upstream over stdio (${STDIO_COMMAND.slice(1).join(" ")}): the gateway's upstream ` +
          `"${STDIO_UPSTREAM}" (${AGENTS} gateway clients calling ${STDIO_UPSTREAM}__lookup, PURE) beside mcp-proxy ` +
          `${mcpProxyVersion()} (npm; its command line with its defaults, --port and --host 127.0.0.1) in front of its ` +
          `own copy of the same command; ${AGENTS} SDK Clients calling lookup through it. CPU per call of each ` +
          `side's process tree, the stdio upstream included`,
        clientFetch:
          "every SDK client (the runner's, and the forwarder's upstream client) sends its requests with a signal of its " +
          "own (scripts/bench/mcp-fetch.ts), so no abort listeners pile up on its session's signal",
        oneClient: `one client each way for half of --seconds: the added time without queueing behind ${AGENTS} clients`,
        addedTime: "the gateway's percentile minus the direct calls' percentile in the same round",
        cpuPerCall:
          "CPU time (user + system) per call used by the runner's MCP clients (process.cpuUsage), the test upstream and " +
          "the opledger server, the bare forwarder or mcp-proxy (/proc/PID/stat of each process tree) during the contender's round",
        loadAverage: `${LOAD_AVERAGE}: os.loadavg()[0] when each round ends, printed beside the one-client target`,
        database: "fresh SQLite file, WAL, synchronous=FULL",
      },
    };
  },
};
