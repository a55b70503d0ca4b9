// Where a server's CPU time went, from the V8 CPU profile a benchmark's server writes (OPLEDGER_BENCH_CPU_PROFILE): each
// sample goes to the nearest frame of known code above it, mapped through the build's source maps to its source file,
// and is counted by area (the agent plane, the gateway, the ledger, Next.js, Prisma, ...). The same method before and
// after a change makes the two comparable (docs/benchmarks.md, "Where the time goes").
// `npx tsx scripts/bench/profile-summary.ts <file.cpuprofile>` prints each area's share of the busy samples.
import fs from "node:fs";
import { SourceMap, type SourceMapPayload } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

export interface CallFrame {
  functionName: string;
  url: string;
  /** 0-based, as V8 writes them. */
  lineNumber: number;
  columnNumber: number;
}

export interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[];
  samples: number[];
  /** Microseconds since the previous sample. */
  timeDeltas: number[];
}

/** Areas by a frame's source path (after source maps), the first that matches wins; other packages by their name. */
export const AREAS: readonly (readonly [string, RegExp])[] = [
  // The gateway is a folder of the agent plane, so it is matched first.
  ["MCP gateway and upstreams (lib/agent-plane/mcp)", /\/lib\/(agent-plane\/mcp|services\/upstreams)\//],
  ["agent plane (lib/agent-plane)", /\/lib\/agent-plane\//],
  ["API wrapper (lib/platform/http)", /\/lib\/platform\/http\//],
  ["keys and sessions (lib/platform/auth)", /\/lib\/platform\/auth\//],
  ["ledger (lib/ledger, lib/platform/db)", /\/lib\/(ledger|platform\/db)\//],
  ["Next.js", /\/node_modules\/next\//],
  ["Prisma", /\/node_modules\/@prisma\/|^wasm:/],
  ["better-sqlite3", /\/node_modules\/better-sqlite3\//],
  ["MCP SDK", /\/node_modules\/@modelcontextprotocol\//],
  ["zod", /\/node_modules\/zod\//],
];
/** The repository's other code (after every package: a package has its own lib/ folders). */
const OPLEDGER_CODE = /\/(lib|app|scripts|components)\/|\/(instrumentation|proxy)\.ts$/;

/** What a sample is when no frame above it has a known source. */
const GC = "garbage collection";
const NODE = "Node itself (no package or opledger frame above)";
const NATIVE = "V8 and native code (program)";

/** The area a source path belongs to, or null for code of no known area (Node's own, an anonymous script). */
export function areaOf(source: string): string | null {
  const area = AREAS.find(([, pattern]) => pattern.test(source))?.[0];
  if (area) return area;
  // Any other package by its name (the last node_modules in the path, a scope and its package together).
  const otherPackage = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source)?.[1];
  if (otherPackage) return `package ${otherPackage}`;
  return OPLEDGER_CODE.test(source) ? "other opledger code" : null;
}

/**
 * Busy samples per area: each sample is walked from its frame up its callers to the first whose source (`sourceOf`)
 * belongs to an area; idle samples are left out. Also the time the samples account for, in ms.
 */
export function summarize(
  profile: CpuProfile,
  sourceOf: (frame: CallFrame) => string,
): { samples: Map<string, number>; ms: Map<string, number>; busy: number } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const areaOfNode = new Map<number, string | null>();
  const attribute = (id: number): string | null => {
    const known = areaOfNode.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id);
    if (!node) return null;
    const { functionName, url } = node.callFrame;
    let area: string | null;
    if (functionName === "(idle)") area = null;
    else if (functionName === "(garbage collector)") area = GC;
    else if (functionName === "(program)") area = NATIVE;
    else {
      const up = parent.get(id);
      area = (url ? areaOf(sourceOf(node.callFrame)) : null) ?? (up === undefined ? NODE : attribute(up));
    }
    areaOfNode.set(id, area);
    return area;
  };
  const samples = new Map<string, number>();
  const ms = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const area = attribute(id);
    if (area === null) return;
    busy++;
    samples.set(area, (samples.get(area) ?? 0) + 1);
    ms.set(area, (ms.get(area) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return { samples, ms, busy };
}

/** A frame's source file: through the source map beside its script when there is one (the Next build's chunks). */
function sourceMapper(): (frame: CallFrame) => string {
  const maps = new Map<string, { map: SourceMap; dir: string } | null>();
  const mapOf = (file: string) => {
    if (!maps.has(file)) {
      const mapFile = `${file}.map`;
      maps.set(
        file,
        fs.existsSync(mapFile)
          ? {
              map: new SourceMap(JSON.parse(fs.readFileSync(mapFile, "utf8")) as SourceMapPayload),
              dir: path.dirname(mapFile),
            }
          : null,
      );
    }
    return maps.get(file) ?? null;
  };
  return ({ url, lineNumber, columnNumber }) => {
    if (!url.startsWith("file://")) return url;
    const file = fileURLToPath(url);
    const mapped = mapOf(file);
    const entry = mapped?.map.findEntry(lineNumber, columnNumber);
    const original = entry && "originalSource" in entry ? entry.originalSource : undefined;
    if (!mapped || !original) return file;
    // The build's maps write a scope's @ as %40.
    const source = decodeURIComponent(original);
    return source.startsWith("file://") ? fileURLToPath(source) : path.resolve(mapped.dir, source);
  };
}

function main(): void {
  const file = process.argv[2];
  if (!file) throw new Error("usage: profile-summary.ts <file.cpuprofile>");
  const profile = JSON.parse(fs.readFileSync(file, "utf8")) as CpuProfile;
  const { samples, ms, busy } = summarize(profile, sourceMapper());
  const total = [...ms.values()].reduce((a, b) => a + b, 0);
  // Shares of time, not of samples: a sample inside a long native call (an fsync) stands for more time than most.
  console.log(`${path.basename(file)}: ${(total / 1000).toFixed(1)} s busy in ${busy} samples`);
  for (const [area, time] of [...ms].sort((a, b) => b[1] - a[1]))
    console.log(
      `${((100 * time) / total).toFixed(1).padStart(5)}%  ${time.toFixed(0).padStart(7)} ms  ` +
        `${String(samples.get(area)).padStart(7)} samples  ${area}`,
    );
}

// Only as a command: npm run bench imports every file in scripts/bench to find the modules.
if (require.main === module) main();
