// The demo world's upstreams file (OPLEDGER_MCP_UPSTREAMS): the support desk, started by the gateway over stdio.
import fs from "node:fs";
import path from "node:path";

export const DEMO_UPSTREAM_NAME = "desk";
export const DEMO_UPSTREAMS_FILE = "mcp-upstreams.json";

export interface DemoUpstreamsOptions {
  /** The repository root, where lib/demo/mcp/demo-upstream.ts and node_modules/tsx are. */
  rootDir: string;
  /** Seeds the desk's faults (default 1). */
  seed?: number;
  /** Every Nth create_ticket times out after creating the ticket (default 5; 0 never). */
  hangEvery?: number;
  /** Where the desk keeps its tickets across restarts (default demo-desk.json in the data dir); null: memory only. */
  stateFile?: string | null;
}

/**
 * Writes `<dataDir>/mcp-upstreams.json` declaring the desk and returns its path. It is replaced by rename and only
 * when its contents change, because the gateway reloads the file whenever it changes.
 */
export function writeDemoUpstreamsFile(dataDir: string, options: DemoUpstreamsOptions): string {
  const stateFile = options.stateFile === undefined ? path.join(dataDir, "demo-desk.json") : options.stateFile;
  const args = [
    "--import",
    "tsx",
    path.join(options.rootDir, "lib", "demo", "mcp", "demo-upstream.ts"),
    "--seed",
    String(options.seed ?? 1),
    "--hang-every",
    String(options.hangEvery ?? 5),
    ...(stateFile ? ["--state", stateFile] : []),
  ];
  // cwd: where `--import tsx` is resolved from.
  const upstream = { command: process.execPath, args, cwd: options.rootDir };
  const contents = `${JSON.stringify({ upstreams: { [DEMO_UPSTREAM_NAME]: upstream } }, null, 2)}\n`;
  const file = path.join(dataDir, DEMO_UPSTREAMS_FILE);
  if (fs.existsSync(file) && fs.readFileSync(file, "utf8") === contents) return file;
  fs.mkdirSync(dataDir, { recursive: true });
  const temporary = `${file}.tmp`;
  fs.writeFileSync(temporary, contents);
  fs.renameSync(temporary, file);
  return file;
}
