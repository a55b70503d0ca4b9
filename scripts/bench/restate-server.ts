// Restate's server (npm @restatedev/restate-server, its binary from the platform package) as a throwaway: a scratch
// base directory, the benchmark's ports, its default configuration otherwise (durability included), removed on stop.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { resolvePeerFile } from "./peers";

/** The benchmark's service and handler (children/restate-service.ts), called at `/<service>/<handler>` on the ingress. */
export const RESTATE_SERVICE = "BenchCharge";
export const RESTATE_HANDLER = "charge";

export interface RestateServer {
  ingressUrl: string;
  adminUrl: string;
  /** The node's Prometheus endpoint (`/metrics` on its node-to-node port). */
  metricsUrl: string;
  pid: number;
  /** The durability settings of the configuration it runs with, read from its own `--dump-config`. */
  durability: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * The value of `key` in `[section]` of a TOML file as `restate-server --dump-config` writes it (one `key = value` a
 * line; the top level is section ""), quotes removed; undefined when absent.
 */
export function configValue(toml: string, section: string, key: string): string | undefined {
  let current = "";
  for (const line of toml.split("\n")) {
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(line);
    if (header?.[1] !== undefined) {
      current = header[1].trim();
      continue;
    }
    const entry = /^\s*([\w-]+)\s*=\s*(.+?)\s*$/.exec(line);
    if (current === section && entry?.[1] === key && entry[2] !== undefined) return entry[2].replace(/^"(.*)"$/, "$1");
  }
  return undefined;
}

/**
 * What decides whether an acknowledged `ctx.run` survives a crash: where the log lives (bifrost's provider, on this
 * node's log server for a single node), how many copies, and whether the RocksDB write-ahead logs are fsynced.
 */
const DURABILITY_KEYS: [section: string, key: string][] = [
  ["", "default-replication"],
  ["bifrost", "default-provider"],
  ["log-server", "rocksdb-disable-wal-fsync"],
];

async function waitUntilReady(adminUrl: string, ingressUrl: string, child: { exitCode: number | null }): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`restate-server exited with code ${child.exitCode}`);
    try {
      // The ingress answers once the node has provisioned itself and its partitions have leaders.
      if ((await fetch(`${adminUrl}/health`)).ok && (await fetch(`${ingressUrl}/restate/health`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error("restate-server was not ready within 90 s");
}

/** Starts restate-server on three ports: ingress, admin, node (which also serves /metrics). */
export async function startRestateServer(
  [ingressPort, adminPort, nodePort]: number[],
  workDir: string,
  log: (line: string) => void,
): Promise<RestateServer> {
  if (ingressPort === undefined || adminPort === undefined || nodePort === undefined)
    throw new Error("restate-server needs three ports");
  const binary = resolvePeerFile(`@restatedev/restate-server-${os.platform()}-${os.arch()}/bin/restate-server`);
  const baseDir = fs.mkdtempSync(path.join(workDir, "restate-"));
  const env = {
    ...process.env,
    RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingressPort}`,
    RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${adminPort}`,
    RESTATE_BIND_ADDRESS: `127.0.0.1:${nodePort}`,
    RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${nodePort}/`,
    RESTATE_LISTEN_MODE: "tcp",
    RESTATE_NODE_NAME: "bench",
    // No report to Restate's telemetry service from a benchmark; nothing else is changed from the defaults.
    RESTATE_DISABLE_TELEMETRY: "true",
    RESTATE_LOG_FILTER: "warn",
  };
  let config: string;
  try {
    config = execFileSync(binary, ["--dump-config", "--base-dir", baseDir], { env, encoding: "utf8" });
  } catch (error) {
    throw new Error(`restate-server cannot run on this machine (${os.platform()}-${os.arch()}): ${String(error)}`);
  }
  const durability = Object.fromEntries(
    DURABILITY_KEYS.map(([section, key]) => [
      section ? `${section}.${key}` : key,
      configValue(config, section, key) ?? "(absent)",
    ]),
  );
  const child = spawn(binary, ["--base-dir", baseDir, "--no-logo"], { env, stdio: ["ignore", "ignore", "pipe"] });
  child.stderr.on("data", (chunk: Buffer) => log(`restate-server: ${chunk.toString().trimEnd()}`));
  const pid = child.pid;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    fs.rmSync(baseDir, { recursive: true, force: true });
  };
  const ingressUrl = `http://127.0.0.1:${ingressPort}`;
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  try {
    if (pid === undefined) throw new Error("restate-server did not start");
    await waitUntilReady(adminUrl, ingressUrl, child);
  } catch (error) {
    await stop();
    throw error;
  }
  return { ingressUrl, adminUrl, metricsUrl: `http://127.0.0.1:${nodePort}/metrics`, pid, durability, stop };
}

/** Registers a service deployment with the server (its admin API discovers the handlers); throws on refusal. */
export async function registerDeployment(adminUrl: string, serviceUrl: string): Promise<void> {
  const response = await fetch(`${adminUrl}/deployments`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ uri: serviceUrl }),
  });
  if (!response.ok) throw new Error(`registering ${serviceUrl} answered ${response.status}: ${await response.text()}`);
}
