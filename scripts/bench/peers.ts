// The durable-execution peers (Restate, DBOS) live in a manifest of their own, scripts/bench/peers/package.json, so the
// root `npm ci` never downloads them (Restate's server binary alone is over 200 MB): the modules that need them install
// them on first use and load them from there.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

export const PEERS_DIR = path.join(__dirname, "peers");
const INSTALLED_LOCK = path.join(PEERS_DIR, "node_modules", ".package-lock.json");

/**
 * `npm ci` in scripts/bench/peers when its node_modules is missing or older than its lockfile. Install scripts stay off:
 * none of the peers needs one (Restate's binary comes in a platform package), and one of them only reports the
 * download to a telemetry service. A failure (registry refusal, no network) throws with npm's own message.
 */
export function ensurePeers(log: (line: string) => void): void {
  const lock = path.join(PEERS_DIR, "package-lock.json");
  if (fs.existsSync(INSTALLED_LOCK) && fs.statSync(INSTALLED_LOCK).mtimeMs >= fs.statSync(lock).mtimeMs) return;
  log("installing the benchmark's peers into scripts/bench/peers/node_modules (npm ci)…");
  try {
    execFileSync("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund"], {
      cwd: PEERS_DIR,
      stdio: ["ignore", "ignore", "pipe"],
    });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim() ?? "";
    throw new Error(`could not install the benchmark peers (npm ci in ${PEERS_DIR}): ${stderr || String(error)}`);
  }
}

/** A package from the peers' node_modules, typed by the caller's own description of the little it uses. */
export function requirePeer<T>(name: string): T {
  return createRequire(path.join(PEERS_DIR, "package.json"))(name) as T;
}

/** A file inside one of the peers' packages (a platform binary, say), resolved as Node resolves it. */
export function resolvePeerFile(specifier: string): string {
  return createRequire(path.join(PEERS_DIR, "package.json")).resolve(specifier);
}

/** The installed version of a peer package, for the result's notes (read from the file: not every package exports it). */
export function peerVersion(name: string): string {
  const manifest = path.join(PEERS_DIR, "node_modules", name, "package.json");
  return (JSON.parse(fs.readFileSync(manifest, "utf8")) as { version: string }).version;
}
