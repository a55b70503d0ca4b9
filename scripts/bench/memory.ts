// Benchmark 5 (load part): the server's resident memory on the 1,000,000-operation ledger, idle after start and under
// the lifecycle load.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { startBenchServer, buildIfStale, putBenchContract } from "./bench-server";
import { HttpLoad } from "./http-load";
import { httpLifecycle } from "./lifecycle-http";
import { sampleRss, treeRssMiB } from "./process-memory";
import type { BenchModule } from "./types";
import { AGENTS } from "./workload";

const OPERATIONS = 1_000_000;
/**
 * Where the console benchmark keeps its seeded large ledger (OPLEDGER_BENCH_CONSOLE_DATABASE_URL overrides it there
 * too).
 */
const SHARED_LEDGER =
  process.env.OPLEDGER_BENCH_CONSOLE_DATABASE_URL?.replace(/^file:/, "") ??
  path.join(".data", "console-bench", "ledger-1m.db");
const LIMIT_MIB = 512;

/**
 * A private copy of the console benchmark's large ledger (the lifecycle load writes to it), or a fresh seed if there is
 * none.
 */
async function largeLedger(workDir: string, log: (line: string) => void): Promise<string> {
  const target = path.join(workDir, "ledger-1m.db");
  if (fs.existsSync(SHARED_LEDGER)) {
    log(`copying the ${OPERATIONS.toLocaleString("en")}-operation ledger ${SHARED_LEDGER}`);
    const source = new Database(SHARED_LEDGER, { readonly: true });
    try {
      await source.backup(target);
    } finally {
      source.close();
    }
  } else {
    log(`seeding ${OPERATIONS.toLocaleString("en")} operations (no ledger from the console benchmark to copy)`);
    const seeded = spawnSync("npx", ["tsx", "scripts/seed-large.ts", "--operations", String(OPERATIONS)], {
      stdio: "inherit",
      env: { ...process.env, DATABASE_URL: `file:${target}` },
    });
    if (seeded.status !== 0) throw new Error("seeding the large ledger failed");
  }
  return `file:${target}`;
}

export const benchmark: BenchModule = {
  name: "memory",
  title: "server resident memory on a 1,000,000-operation ledger, after start and under the lifecycle load (16 agents)",
  async run({ rounds, roundSeconds, ports, workDir, reuseBuild, log }) {
    buildIfStale({ reuseBuild, log });
    const server = await startBenchServer(await largeLedger(workDir, log), ports[0] ?? 3400, log);
    const load = new HttpLoad(server.url, AGENTS, server.apiKey);
    const idle: number[] = [];
    const peaks: number[] = [];
    const rates: number[] = [];
    try {
      await putBenchContract(server);
      for (let round = 1; round <= rounds; round++) {
        idle.push(treeRssMiB(server.pid));
        const memory = sampleRss(server.pid, 100);
        const life = await load.round(AGENTS, roundSeconds, (send, agent, n) =>
          httpLifecycle(send, agent, round * 1_000_000 + n),
        );
        peaks.push(Math.max(...memory.stop()));
        rates.push(life.scenarios / life.seconds);
        log(
          `round ${round}: RSS before ${idle.at(-1)?.toFixed(0)} MiB, peak under load ${peaks.at(-1)?.toFixed(0)} MiB, ` +
            `${rates.at(-1)?.toFixed(0)} lifecycles/s`,
        );
      }
    } finally {
      await load.close();
      await server.stop();
    }
    return {
      figures: [
        { label: "server RSS before the round (1M operations)", unit: "MiB", rounds: idle },
        { label: "server RSS peak under lifecycle load", unit: "MiB", rounds: peaks },
        { label: "lifecycles/s on the 1M ledger", unit: "1/s", rounds: rates },
      ],
      targets: [
        {
          label: `server RSS < ${LIMIT_MIB} MiB after the seed`,
          figure: "server RSS before the round (1M operations)",
          statistic: "max",
          comparison: "<",
          limit: LIMIT_MIB,
        },
        {
          label: `server RSS < ${LIMIT_MIB} MiB under load`,
          figure: "server RSS peak under lifecycle load",
          statistic: "max",
          comparison: "<",
          limit: LIMIT_MIB,
        },
      ],
      notes: {
        rss:
          "VmRSS of the production server (scripts/next-server.mjs, started as npm run serve starts it; its launcher " +
          "not counted) and its descendants, sampled every 100 ms",
        operations: OPERATIONS,
        agents: AGENTS,
      },
    };
  },
};
