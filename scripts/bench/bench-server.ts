// The product as benchmarks see it: a production build in .next-bench, started like `npm run serve` on a port and
// database of the run's own.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { prepareDatabase } from "../prepare-database";
import { buildIsFresh } from "../build-freshness";
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
  pid: number;
  stop(): Promise<void>;
}

async function waitUntilHealthy(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the benchmark server exited with code ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/api/health`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the benchmark server did not answer ${url}/api/health within ${timeoutMs} ms`);
}

/**
 * Migrates the database, starts `next start` on the port with an all-scope API key (and `env` on top of the
 * benchmark's own variables), and waits for /api/health.
 */
export async function startBenchServer(
  databaseUrl: string,
  port: number,
  log: (line: string) => void,
  env: Record<string, string> = {},
): Promise<BenchServer> {
  prepareDatabase(databaseUrl);
  const url = `http://127.0.0.1:${port}`;
  const apiKey = `opl_bench_${randomBytes(24).toString("base64url")}`;
  // OPLEDGER_BENCH_CPU_PROFILE=<dir>: the server writes a V8 CPU profile there when it stops (docs/benchmarks.md).
  const profileDir = process.env.OPLEDGER_BENCH_CPU_PROFILE;
  const profiling = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
  const nextBin = path.join("node_modules", "next", "dist", "bin", "next");
  const child = spawn(process.execPath, [...profiling, nextBin, "start", "-p", String(port), "-H", "127.0.0.1"], {
    stdio: ["ignore", "ignore", "pipe"],
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_DIST_DIR: BENCH_DIST_DIR,
      DATABASE_URL: databaseUrl,
      OPLEDGER_DEMO: "off",
      OPLEDGER_BOOTSTRAP_API_KEY: apiKey,
      NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
      NEXTAUTH_URL: url,
      ...env,
    },
  });
  child.stderr?.on("data", (chunk: Buffer) => log(`server: ${chunk.toString().trimEnd()}`));
  const pid = child.pid;
  if (pid === undefined) throw new Error("the benchmark server did not start");
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  };
  try {
    await waitUntilHealthy(url, child, 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, apiKey, pid, stop };
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
