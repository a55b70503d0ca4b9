// The layers of the repository and the arrows each may draw (docs/architecture.md#the-rooms):
// `npm run lint` fails on an import between two layers that this table does not list, naming the arrow.
// A layer is a path prefix; a file belongs to the longest prefix that contains it. Tests (*.test.ts), e2e/, tests/,
// scripts/ and the root's config files are tools, not layers: they may import any layer.

export interface Layer {
  /** The layers this one may import (its own files always). */
  mayImport: readonly string[];
  /** What the layer is, in a few words, for the message that names a wrong arrow. */
  is: string;
}

/** The rooms of lib/ that hold several layers: each folder of such a room is a layer (but the generated client). */
export const ROOMS = ["lib/platform", "lib/services"] as const;

/** What the console's components read and call; its pages import the components besides. */
const CONSOLE_READS = [
  "lib/retry-gate",
  "lib/platform/config",
  "lib/platform/auth",
  "lib/ledger",
  "lib/services/notify",
  "lib/services/upstreams",
  "lib/console",
];

export const LAYERS: Readonly<Record<string, Layer>> = {
  // The domain core and the test build's hooks: they import nothing of the project.
  "lib/retry-gate": { is: "the pure core", mayImport: [] },
  "lib/testing": { is: "the test build's hooks, compiled out of a normal build", mayImport: [] },
  // The platform below the ledger.
  "lib/platform/config": { is: "the validated environment", mayImport: [] },
  "lib/platform/telemetry": { is: "tracing: the caller's trace, the SDK when configured, span helpers", mayImport: [] },
  "lib/platform/wire": {
    is: "the agent API's request and answer types, shared by the server, the client SDK and the specs",
    mayImport: ["lib/retry-gate"],
  },
  "lib/platform/db": { is: "the Prisma client", mayImport: ["lib/platform/config"] },
  "lib/platform/migrate": { is: "schema migrations", mayImport: ["lib/platform/config", "lib/platform/db"] },
  "lib/services/outbound": {
    is: "outbound requests under the SSRF rules",
    mayImport: ["lib/platform/config", "lib/platform/telemetry"],
  },
  // The ledger.
  "lib/ledger": {
    is: "the ledger: commands, reads, store",
    mayImport: [
      "lib/retry-gate",
      "lib/platform/config",
      "lib/platform/db",
      "lib/platform/telemetry",
      "lib/platform/wire",
      "lib/services/outbound",
      "lib/testing",
    ],
  },
  // The services over the ledger.
  "lib/services/notify": {
    is: "webhooks and their deliveries",
    mayImport: [
      "lib/retry-gate",
      "lib/platform/config",
      "lib/platform/telemetry",
      "lib/ledger",
      "lib/services/outbound",
    ],
  },
  "lib/services/upstreams": {
    is: "the MCP servers behind the gateway",
    mayImport: ["lib/retry-gate", "lib/platform/config", "lib/ledger", "lib/services/outbound"],
  },
  // The platform over the ledger: people and keys, the HTTP wire both planes speak, the server's start-up.
  "lib/platform/auth": {
    is: "people, keys and sessions",
    mayImport: ["lib/platform/config", "lib/ledger", "lib/platform/server"],
  },
  "lib/platform/http": {
    is: "the HTTP wire both planes speak: problems, bodies, same-origin, the one refusal mapping",
    mayImport: ["lib/retry-gate", "lib/platform/auth", "lib/ledger", "lib/services/notify"],
  },
  "lib/platform/server": {
    is: "the server process's start-up",
    mayImport: [
      "lib/platform/config",
      "lib/platform/db",
      "lib/platform/auth",
      "lib/platform/telemetry",
      "lib/ledger",
      "lib/services/notify",
      "lib/services/upstreams",
      "lib/demo",
    ],
  },
  // The client SDK and the demo that uses it.
  "lib/executor": { is: "the TypeScript client of the HTTP API", mayImport: ["lib/retry-gate", "lib/platform/wire"] },
  "lib/demo": {
    is: "the demo's providers and agent",
    mayImport: [
      "lib/retry-gate",
      "lib/platform/config",
      "lib/platform/auth",
      "lib/executor",
      "lib/ledger",
      "lib/services/outbound",
    ],
  },
  // The two planes: neither imports the other.
  "lib/agent-plane": {
    is: "the agent plane: /api/v1, the MCP gateway and its stdio bridge, the probes",
    mayImport: [
      "lib/retry-gate",
      "lib/platform/auth",
      "lib/platform/http",
      "lib/platform/server",
      "lib/platform/telemetry",
      "lib/ledger",
      "lib/services/notify",
      "lib/services/upstreams",
      "lib/testing",
    ],
  },
  "lib/console": {
    is: "the console's server side: server actions, route wrapper, reads and views",
    mayImport: [
      "lib/retry-gate",
      "lib/platform/auth",
      "lib/platform/http",
      "lib/ledger",
      "lib/services/notify",
      "lib/services/upstreams",
    ],
  },
  // The console's pages, components and routes (Next.js's folders).
  "app/api": {
    is: "the console's route handlers",
    mayImport: ["lib/platform/auth", "lib/platform/http", "lib/ledger", "lib/services/notify", "lib/console"],
  },
  components: { is: "the console's React components", mayImport: CONSOLE_READS },
  app: { is: "the console's pages", mayImport: [...CONSOLE_READS, "components"] },
};

/** Tools, not layers: they may import anything. */
const TOOLS = /(^|\/)[^/]+\.test\.tsx?$|^(e2e|tests|scripts|clients)\//;

/** The layer a file belongs to (the longest prefix), or null for a tool or a root file. */
export function layerOf(file: string): string | null {
  if (TOOLS.test(file)) return null;
  let found: string | null = null;
  for (const layer of Object.keys(LAYERS)) {
    if (file.startsWith(`${layer}/`) && (found === null || layer.length > found.length)) found = layer;
  }
  return found;
}

export interface WrongArrow {
  from: string;
  to: string;
  file: string;
  imports: string;
}

/** Every import between two layers that the table does not list. */
export function wrongArrows(graph: ReadonlyMap<string, readonly string[]>): WrongArrow[] {
  const wrong: WrongArrow[] = [];
  for (const [file, targets] of graph) {
    const from = layerOf(file);
    if (from === null) continue;
    for (const target of targets) {
      const to = layerOf(target);
      if (to === null || to === from || LAYERS[from]!.mayImport.includes(to)) continue;
      wrong.push({ from, to, file, imports: target });
    }
  }
  return wrong;
}
