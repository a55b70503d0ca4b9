// The product as benchmarks see it: a production build in .next-bench, started as `npm run serve` starts it (the
// production server, scripts/next-server.mjs) on a port and database of the run's own.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { buildIsFresh } from "../build-freshness";
import { childrenOf } from "./process-memory";
import type { BenchOptions } from "./types";
import { BENCH_CONTRACT, BENCH_TOOL } from "./workload";

export const BENCH_DIST_DIR = ".next-bench";

/** Builds into .next-bench when it is missing or older than the sources, and leaves tsconfig.json as it found it. */
export function buildIfStale({ reuseBuild, log }: Pick<BenchOptions, "reuseBuild" | "log">): void {
  if (buildIsFresh(BENCH_DIST_DIR) || (reuseBuild && fs.existsSync(path.join(BENCH_DIST_DIR, "BUILD_ID")))) return;
  log(`building the product into ${BENCH_DIST_DIR} (sources changed since the last benchmark build)…`);
  const tsconfig = fs.readFileSync("tsconfig.json", "utf8");
  try {
    const result = spawnSync("npm", ["run", "build"], {
      stdio: ["ignore", "ignore", "inherit"],
      // Benchmarks measure the product: never a build with the test-only hooks.
      env: { ...process.env, NEXT_DIST_DIR: BENCH_DIST_DIR, OPLEDGER_TEST_HOOKS: "" },
    });
    if (result.status !== 0)
      throw new Error("the benchmark build failed (npm run build with NEXT_DIST_DIR=.next-bench)");
  } finally {
    // next build adds its dist dir's type folders to "include"; they are not part of the project.
    fs.writeFileSync("tsconfig.json", tsconfig);
  }
}

export interface BenchServer {
  url: string;
  apiKey: string;
  /** The production server itself (scripts/next-server.mjs), not its launcher: whose CPU and memory figures count. */
  pid: number;
  stop(): Promise<void>;
}

/** The production server as `npm run serve` starts it, on a port and database of its own. */
export interface ProductionServer {
  url: string;
  /** scripts/next-server.mjs's process, the launcher's child. */
  pid: number;
  stop(): Promise<void>;
}

/** The repository: the server's working directory, where Next.js finds the build (NEXT_DIST_DIR is relative to it). */
export const REPO_ROOT = path.resolve(__dirname, "..", "..");
/** `npm run serve` without npm: scripts/serve.ts checks the environment, migrates, and launches scripts/next-server.mjs. */
const SERVE_SCRIPT = path.join(REPO_ROOT, "scripts", "serve.ts");
const NEXT_SERVER = "next-server.mjs";
const CPU_PROFILE_PRELOAD = path.join(__dirname, "cpu-profile.mjs");
/** How long the drain may take before the launcher is killed (its server then drains on its own: scripts/launch.ts). */
const STOP_MS = 30_000;

async function waitUntilHealthy(url: string, child: ChildProcess, timeoutMs: number, output: () => string) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`the benchmark server exited with code ${child.exitCode}:\n${output()}`);
    try {
      if ((await fetch(`${url}/api/health`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the benchmark server did not answer ${url}/api/health within ${timeoutMs} ms:\n${output()}`);
}

/** The launcher's child that runs scripts/next-server.mjs: the server whose CPU and memory the benchmarks measure. */
function serverOf(launcher: number): number {
  const servers = childrenOf(launcher).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(NEXT_SERVER);
    } catch {
      return false;
    }
  });
  if (servers.length !== 1 || servers[0] === undefined)
    throw new Error(`the launcher (pid ${launcher}) runs ${servers.length} ${NEXT_SERVER} processes, expected one`);
  return servers[0];
}

/**
 * Starts the production server the way `npm run serve` does (scripts/serve.ts, then scripts/launch.ts, then
 * scripts/next-server.mjs: the same process, handlers and drain as a deployment) on the build in `distDir`, loopback
 * `port` and `databaseUrl`, with `env` on top of this process's environment, and waits for /api/health.
 */
export async function startProductionServer({
  distDir,
  databaseUrl,
  port,
  env,
  log,
  startMs = 60_000,
}: {
  distDir: string;
  databaseUrl: string;
  port: number;
  env: Record<string, string>;
  log?: (line: string) => void;
  startMs?: number;
}): Promise<ProductionServer> {
  const url = `http://127.0.0.1:${port}`;
  // OPLEDGER_BENCH_CPU_PROFILE=<dir>: the launcher and the server each write a V8 CPU profile there when they stop
  // (docs/benchmarks.md); the preload reaches the server through NODE_OPTIONS, which the launcher passes on.
  const profiling = process.env.OPLEDGER_BENCH_CPU_PROFILE
    ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${pathToFileURL(CPU_PROFILE_PRELOAD).href}`.trim() }
    : {};
  let printed = "";
  const child = spawn(process.execPath, ["--import", "tsx", SERVE_SCRIPT], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      NEXT_DIST_DIR: distDir,
      PORT: String(port),
      HOSTNAME: "127.0.0.1",
      DATABASE_URL: databaseUrl,
      NEXTAUTH_URL: url,
      OPLEDGER_DEMO: "off",
      ...profiling,
      ...env,
    },
  });
  // The last lines it printed, for the error when it does not start.
  const output = (): string => printed;
  const keep = (chunk: Buffer): void => {
    printed = (printed + chunk.toString()).slice(-4000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", (chunk: Buffer) => {
    keep(chunk);
    log?.(`server: ${chunk.toString().trimEnd()}`);
  });
  const launcher = child.pid;
  if (launcher === undefined) throw new Error("the benchmark server did not start");
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), STOP_MS);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitUntilHealthy(url, child, startMs, output);
    return { url, pid: serverOf(launcher), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The production server with an all-scope API key (the bootstrap key) on `databaseUrl`, on the .next-bench build. */
export async function startBenchServer(
  databaseUrl: string,
  port: number,
  log: (line: string) => void,
  env: Record<string, string> = {},
): Promise<BenchServer> {
  const apiKey = `opl_bench_${randomBytes(24).toString("base64url")}`;
  const server = await startProductionServer({
    distDir: BENCH_DIST_DIR,
    databaseUrl,
    port,
    log,
    env: { OPLEDGER_BOOTSTRAP_API_KEY: apiKey, NEXTAUTH_SECRET: randomBytes(32).toString("base64url"), ...env },
  });
  return { url: server.url, apiKey, pid: server.pid, stop: () => server.stop() };
}

/** Puts the benchmark's contract (workload.ts) through the server's API. */
export async function putBenchContract(server: BenchServer): Promise<void> {
  const put = await fetch(`${server.url}/api/v1/contracts/${BENCH_TOOL}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${server.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(BENCH_CONTRACT),
  });
  if (!put.ok) throw new Error(`PUT contract answered ${put.status}: ${await put.text()}`);
}
