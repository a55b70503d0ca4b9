// Benchmark "console": the console at scale on a 1,000,000-operation ledger (issue #8, parts 3 and 5). Also runs alone:
// `npx tsx scripts/bench/console.ts [--database URL] [--rounds N] [--seconds S] [--port P] [--out FILE]
// [--reuse-build]`.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { sqliteFilePath } from "../../lib/platform/config/database-url";
import { openLedger, type Ledger } from "@/lib/ledger/ledger";
import { applySqliteSettings } from "@/lib/platform/db/sqlite-settings";
import { prepareDatabase } from "../prepare-database";
import { ledgerPageTimings } from "./console-browser";
import { loadWithMemory, sampleRoute } from "./console-http";
import { indexWriteCost } from "./console-index-cost";
import { explainCases, type CasePlan } from "./console-plans";
import { consoleCases, findDeepCursors, type ConsoleCase } from "./console-queries";
import { BENCH_DIST_DIR, buildIfStale } from "./bench-server";
import { startConsoleServer, type ConsoleServer } from "./console-server";
import { treeRssMiB } from "./process-memory";
import { percentile, spread } from "./stats";
import type { BenchModule, BenchOptions, BenchResult, Figure, TargetCheck } from "./types";

const ROOT = path.resolve(__dirname, "..", "..");
/** The large ledger, seeded once and kept (under .data/, which git ignores). */
const DEFAULT_DATABASE_URL = `file:${path.join(ROOT, ".data", "console-bench", "ledger-1m.db")}`;
const OPERATIONS = 1_000_000;
/** Samples per read per round: enough for a p95 (the 95th of 100 is the 5th slowest, of 60 the 3rd). */
const QUERY_SAMPLES = 100;
const HTTP_SAMPLES = 60;
const PAGE_LOADS = 5;
const LOAD_CONCURRENCY = 8;
const P95_LIMIT_MS = 50;

function databaseUrl(): string {
  return process.env.OPLEDGER_BENCH_CONSOLE_DATABASE_URL ?? DEFAULT_DATABASE_URL;
}

/** Seeds the large ledger if it is not there yet (minutes, once) and applies pending migrations (new indexes). */
async function ensureLargeLedger(url: string, log: (line: string) => void): Promise<void> {
  const file = sqliteFilePath(url);
  if (file && !fs.existsSync(file)) {
    log(`seeding ${OPERATIONS.toLocaleString("en")} operations into ${file} (once; takes minutes)`);
    const seeded = spawnSync("npx", ["tsx", "scripts/seed-large.ts", "--operations", String(OPERATIONS)], {
      cwd: ROOT,
      stdio: "inherit",
      env: { ...process.env, DATABASE_URL: url },
    });
    if (seeded.status !== 0) throw new Error("seeding the large ledger failed");
  }
  prepareDatabase(url);
  const ledger = openLedger(url);
  try {
    const count = await ledger.db.operation.count();
    if (count < OPERATIONS)
      throw new Error(
        `${redact(url)} holds ${count} operations; the benchmark needs ${OPERATIONS} (npm run seed:large -- --operations ` +
          `${OPERATIONS - count})`,
      );
  } finally {
    await ledger.close();
  }
}

/** The suite's shared build (.next-bench, rebuilt when stale), or the build NEXT_DIST_DIR names, used as it is. */
function productionBuild(options: BenchOptions): string {
  const given = process.env.NEXT_DIST_DIR;
  if (given) return given;
  buildIfStale(options);
  return BENCH_DIST_DIR;
}

const redact = (url: string): string => url.replace(/\/\/[^@/]*@/, "//***@");

/**
 * Wall time and this process's CPU time of each call. On SQLite the query runs inside this process (better-sqlite3 is
 * synchronous), so CPU time is the read's cost without the waits for a core that a busy shared machine adds; on
 * PostgreSQL the server's work happens in its own process and only wall time means anything.
 */
async function timeCase(ledger: Ledger, c: ConsoleCase, now: Date): Promise<{ wallMs: number[]; cpuMs: number[] }> {
  for (let i = 0; i < 5; i++) await c.run(ledger, now);
  const wallMs: number[] = [];
  const cpuMs: number[] = [];
  for (let i = 0; i < QUERY_SAMPLES; i++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    await c.run(ledger, now);
    wallMs.push(performance.now() - started);
    const used = process.cpuUsage(cpu);
    cpuMs.push((used.user + used.system) / 1000);
  }
  return { wallMs, cpuMs };
}

function figureOf(figures: Map<string, Figure>, label: string, unit: string): Figure {
  let figure = figures.get(label);
  if (!figure) {
    figure = { label, unit, rounds: [] };
    figures.set(label, figure);
  }
  return figure;
}

async function run(options: BenchOptions): Promise<BenchResult> {
  const url = databaseUrl();
  const log = options.log;
  await ensureLargeLedger(url, log);
  const distDir = productionBuild(options);

  const figures = new Map<string, Figure>();
  for (const cost of await indexWriteCost(options.workDir, options.rounds, options.roundSeconds / 2, log)) {
    figureOf(figures, "writes with the console indexes (fresh SQLite)", "lifecycles/s").rounds.push(cost.withIndexes);
    figureOf(figures, "writes without them", "lifecycles/s").rounds.push(cost.withoutIndexes);
    figureOf(figures, "writes with / without the console indexes", "ratio").rounds.push(
      cost.withIndexes / cost.withoutIndexes,
    );
  }

  const ledger = openLedger(url);
  if (sqliteFilePath(url)) await applySqliteSettings(ledger.db);
  const now = new Date();
  let cases: ConsoleCase[];
  let plans: CasePlan[];
  try {
    const deep = await findDeepCursors(ledger);
    cases = consoleCases(deep);
    plans = await explainCases(url, cases, now);
    for (let round = 1; round <= options.rounds; round++) {
      for (const c of cases) {
        const { wallMs, cpuMs } = await timeCase(ledger, c, now);
        figureOf(figures, `query p95: ${c.name}`, "ms").rounds.push(percentile(wallMs, 95));
        figureOf(figures, `query CPU p95: ${c.name}`, "ms").rounds.push(percentile(cpuMs, 95));
      }
      const lastOf = (label: string): number => figures.get(label)?.rounds.at(-1) ?? Number.NaN;
      figureOf(figures, "query deep page / first page (p95)", "ratio").rounds.push(
        lastOf("query p95: deep-page") / lastOf("query p95: first-page"),
      );
      figureOf(figures, "query deep page / first page (CPU p95)", "ratio").rounds.push(
        lastOf("query CPU p95: deep-page") / lastOf("query CPU p95: first-page"),
      );
      log(`round ${round}: in-process queries timed`);
    }
  } finally {
    await ledger.close();
  }

  const port = options.ports[0] ?? 3450;
  let server: ConsoleServer | null = null;
  try {
    server = await startConsoleServer(distDir, url, port);
    const paths = [...cases.map((c) => c.path), "/"];
    for (const p of paths) await sampleRoute(server, p, 3);
    figureOf(figures, "server RSS after start and one pass over every read", "MiB").rounds.push(treeRssMiB(server.pid));
    for (let round = 1; round <= options.rounds; round++) {
      for (const c of cases) {
        figureOf(figures, `HTTP p95: ${c.name}`, "ms").rounds.push(
          percentile(await sampleRoute(server, c.path, HTTP_SAMPLES), 95),
        );
      }
      figureOf(figures, "HTTP p95: ledger page HTML (/)", "ms").rounds.push(
        percentile(await sampleRoute(server, "/", HTTP_SAMPLES), 95),
      );
      const timings = await ledgerPageTimings(server, PAGE_LOADS);
      figureOf(figures, "ledger page: first row visible (median of loads)", "ms").rounds.push(
        percentile(
          timings.map((t) => t.firstRowMs),
          50,
        ),
      );
      figureOf(figures, "ledger page: interactive (median of loads)", "ms").rounds.push(
        percentile(
          timings.map((t) => t.interactiveMs),
          50,
        ),
      );
      const load = await loadWithMemory(server, paths, LOAD_CONCURRENCY, options.roundSeconds);
      figureOf(figures, `server RSS peak under load (${LOAD_CONCURRENCY} clients)`, "MiB").rounds.push(load.peakRssMiB);
      figureOf(figures, "requests per second under load", "req/s").rounds.push(load.requests / options.roundSeconds);
      log(`round ${round}: HTTP, browser and memory measured`);
    }
  } finally {
    await server?.stop();
  }

  const targets: TargetCheck[] = [
    ...cases.flatMap((c): TargetCheck[] => [
      {
        label: `${c.name}: query p95 < ${c.p95LimitMs ?? P95_LIMIT_MS} ms`,
        figure: `query p95: ${c.name}`,
        statistic: "median",
        comparison: "<",
        limit: c.p95LimitMs ?? P95_LIMIT_MS,
      },
      {
        label: `${c.name}: HTTP p95 < ${c.p95LimitMs ?? P95_LIMIT_MS} ms`,
        figure: `HTTP p95: ${c.name}`,
        statistic: "median",
        comparison: "<",
        limit: c.p95LimitMs ?? P95_LIMIT_MS,
      },
    ]),
    {
      label: "deep page within 2x of the first page",
      figure: "query deep page / first page (p95)",
      statistic: "median",
      comparison: "<",
      limit: 2,
    },
    {
      label: "server RSS < 512 MiB after the seed",
      figure: "server RSS after start and one pass over every read",
      statistic: "max",
      comparison: "<",
      limit: 512,
    },
    {
      label: "server RSS < 512 MiB under load",
      figure: `server RSS peak under load (${LOAD_CONCURRENCY} clients)`,
      statistic: "max",
      comparison: "<",
      limit: 512,
    },
  ];
  return {
    figures: [...figures.values()],
    targets,
    notes: {
      database: redact(url),
      engine: sqliteFilePath(url) ? "sqlite" : "postgresql",
      operations: OPERATIONS,
      samples: {
        queryPerRound: QUERY_SAMPLES,
        httpPerRound: HTTP_SAMPLES,
        pageLoadsPerRound: PAGE_LOADS,
        loadConcurrency: LOAD_CONCURRENCY,
      },
      reads: Object.fromEntries(cases.map((c) => [c.name, { title: c.title, path: c.path }])),
      plans: Object.fromEntries(plans.map((p) => [p.name, p.plan])),
      sql: Object.fromEntries(plans.map((p) => [p.name, p.sql])),
    },
  };
}

export const benchmark: BenchModule = {
  name: "console",
  title: "Console at scale: reads on 1,000,000 operations, query plans, page load, server memory",
  run,
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      database: { type: "string" },
      rounds: { type: "string", default: "3" },
      seconds: { type: "string", default: "8" },
      port: { type: "string", default: "3450" },
      out: { type: "string" },
      "reuse-build": { type: "boolean", default: false },
    },
  });
  if (values.database) process.env.OPLEDGER_BENCH_CONSOLE_DATABASE_URL = values.database;
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "opledger-bench-console-"));
  const result = await run({
    rounds: Number(values.rounds),
    roundSeconds: Number(values.seconds),
    ports: [Number(values.port)],
    workDir,
    reuseBuild: values["reuse-build"],
    log: (line) => console.log(`   ${line}`),
  }).finally(() => fs.rmSync(workDir, { recursive: true, force: true }));
  for (const figure of result.figures) {
    const s = spread(figure.rounds);
    console.log(
      `${figure.label.padEnd(62)} ${figure.unit.padStart(5)}  min ${s.min.toFixed(1)}  median ${s.median.toFixed(1)}  ` +
        `max ${s.max.toFixed(1)}`,
    );
  }
  for (const [name, plan] of Object.entries(result.notes.plans as Record<string, string[]>))
    console.log(`plan ${name}: ${plan.join(" | ")}`);
  if (values.out) fs.writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  });
}
