// `npm run bench [-- name ...] [--rounds N] [--seconds S] [--reuse-build]`: runs the benchmark modules, prints a table
// and writes bench-results/*.json.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { printResults, targetOutcomes } from "./report";
import { spread } from "./stats";
import type { BenchModule, BenchResult } from "./types";

const BENCH_DIR = __dirname;
const RESULTS_DIR = path.join(process.cwd(), "bench-results");
/**
 * Each module gets its own block of ports inside the range reserved for benchmarks (from 3400, or from
 * OPLEDGER_BENCH_FIRST_PORT when runs share a machine).
 */
const PORT_BASE = Number(process.env.OPLEDGER_BENCH_FIRST_PORT ?? 3400);
const PORTS_PER_MODULE = 10;
/** Modules run in this order (cheap and independent first); any other module found in scripts/bench runs after them. */
const PREFERRED_ORDER = [
  "ledger-inprocess",
  "lifecycle-http",
  "bulk-pacing",
  "pg-queues",
  "restate",
  "mcp-gateway",
  "console",
  "memory",
];

function isBenchModule(value: unknown): value is BenchModule {
  const candidate = value as Partial<BenchModule> | null;
  return (
    typeof candidate?.name === "string" && typeof candidate.title === "string" && typeof candidate.run === "function"
  );
}

/** Every module in scripts/bench that exports a BenchModule as `benchmark`; helpers export none. */
async function discoverModules(): Promise<BenchModule[]> {
  const found: BenchModule[] = [];
  for (const file of fs.readdirSync(BENCH_DIR).sort()) {
    if (!file.endsWith(".ts") || file.endsWith(".test.ts") || file === "run.ts") continue;
    const exported = (await import(path.join(BENCH_DIR, file))) as { benchmark?: unknown };
    if (isBenchModule(exported.benchmark)) found.push(exported.benchmark);
  }
  const rank = (m: BenchModule): number => {
    const i = PREFERRED_ORDER.indexOf(m.name);
    return i === -1 ? PREFERRED_ORDER.length : i;
  };
  return found.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
}

const oneMinuteLoad = (): number => os.loadavg()[0] ?? Number.NaN;

function gitCommit(): string {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      rounds: { type: "string", default: "3" },
      seconds: { type: "string", default: "8" },
      "reuse-build": { type: "boolean", default: false },
    },
  });
  const rounds = Number(values.rounds);
  const roundSeconds = Number(values.seconds);
  if (!Number.isInteger(rounds) || rounds < 1 || !(roundSeconds > 0))
    throw new Error("--rounds must be a whole number ≥ 1 and --seconds > 0");
  const all = await discoverModules();
  const unknown = positionals.filter((name) => !all.some((m) => m.name === name));
  if (unknown.length > 0)
    throw new Error(`No benchmark named ${unknown.join(", ")}; there are: ${all.map((m) => m.name).join(", ")}`);
  const selected = positionals.length > 0 ? all.filter((m) => positionals.includes(m.name)) : all;

  const started = new Date();
  const results: {
    name: string;
    title: string;
    seconds: number;
    /** The machine's 1-minute load average when the module started and when it ended: read every figure with it. */
    loadAverage: { start: number; end: number };
    result: BenchResult;
  }[] = [];
  const failures: { name: string; error: string }[] = [];
  for (const [index, module] of selected.entries()) {
    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), `opledger-bench-${module.name}-`));
    const ports = Array.from({ length: PORTS_PER_MODULE }, (_, i) => PORT_BASE + index * PORTS_PER_MODULE + i);
    const t0 = Date.now();
    const loadAtStart = oneMinuteLoad();
    console.log(`\n== ${module.name}: ${module.title} (load average ${loadAtStart.toFixed(1)})`);
    try {
      const result = await module.run({
        rounds,
        roundSeconds,
        ports,
        workDir,
        reuseBuild: values["reuse-build"],
        log: (line) => console.log(`   ${line}`),
      });
      results.push({
        name: module.name,
        title: module.title,
        seconds: Math.round((Date.now() - t0) / 1000),
        loadAverage: { start: loadAtStart, end: oneMinuteLoad() },
        result,
      });
    } catch (error) {
      // One module that cannot run (no PostgreSQL, say) does not cost the others' figures.
      const message = error instanceof Error ? error.message : String(error);
      console.error(`   FAILED: ${error instanceof Error ? (error.stack ?? message) : message}`);
      failures.push({ name: module.name, error: message });
    } finally {
      fs.rmSync(workDir, { recursive: true, force: true });
    }
  }

  printResults(results);
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${started.toISOString().replace(/[:.]/g, "-")}.json`);
  const machine = {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? "unknown",
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  };
  const body = {
    startedAt: started.toISOString(),
    commit: gitCommit(),
    machine,
    options: { rounds, roundSeconds },
    // Each figure's per-round values stay beside their min/median/max (the median is what targets are checked on).
    modules: results.map((r) => ({
      ...r,
      result: { ...r.result, figures: r.result.figures.map((figure) => ({ ...figure, ...spread(figure.rounds) })) },
      targets: targetOutcomes(r.result),
    })),
    failures,
  };
  fs.writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`);
  console.log(`\nResults: ${path.relative(process.cwd(), file)}`);
  for (const failure of failures) console.error(`FAILED ${failure.name}: ${failure.error}`);
  if (failures.length > 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
