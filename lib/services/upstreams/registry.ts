// The upstreams of one process, built from an upstreams file and kept in step with it: a good change stops removed or
// changed upstreams and adds new ones; a bad change is refused with one logged sentence and the previous ones stay.
import fs from "node:fs";
import type { Resolver } from "@/lib/services/outbound/resolve";
import type { Environment } from "@/lib/services/outbound/secrets";
import type {
  CallOptions,
  ToolsChangedListener,
  UpstreamCall,
  UpstreamLog,
  UpstreamStatus,
  UpstreamTool,
} from "./types";
import { UpstreamConnection, type ConnectionSettings } from "./upstream-connection";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { readUpstreamsFile, type UpstreamConfig } from "./upstreams-file";

export interface Upstreams {
  /** Every upstream's status, in the file's order; starts nothing. */
  list(): UpstreamStatus[];
  /** Every upstream's tools, starting those not yet started; one that cannot start contributes none. */
  tools(): Promise<UpstreamTool[]>;
  callUpstreamTool(
    upstream: string,
    tool: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<UpstreamCall>;
  /** The connected client of `upstream` for the requests relayed unchanged (prompts, resources), or why there is none. */
  client(upstream: string): Promise<Client | string>;
  /** Null when a call to `upstream` may be sent now; else why not (unknown, stopped, or waiting to restart). */
  unavailable(upstream: string): string | null;
  /** Called with the upstream's name whenever its tools change (or it is added or removed). */
  onToolsChanged(listener: ToolsChangedListener): () => void;
  /** Stops every upstream and the file watch. */
  close(): Promise<void>;
}

export interface UpstreamsOptions {
  /** Where named secrets are read (default: this process's environment). */
  environment?: Environment;
  /** OPLEDGER_OUTBOUND_ALLOW_PRIVATE for url upstreams (default: off). */
  allowPrivate?: boolean;
  /** Default: console.log. */
  log?: UpstreamLog;
  resolve?: Resolver;
  /** How often the file is polled for changes (default 1 s); 0 does not watch. */
  watchIntervalMs?: number;
  startTimeoutMs?: number;
  restartBackoff?: { baseMs: number; maxMs: number };
  stableAfterMs?: number;
  random?: () => number;
  now?: () => number;
}

const DEFAULTS = {
  watchIntervalMs: 1000,
  startTimeoutMs: 30_000,
  restartBackoff: { baseMs: 500, maxMs: 30_000 },
  stableAfterMs: 10_000,
};

function fileStamp(file: string): string {
  try {
    const stat = fs.statSync(file);
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return "missing";
  }
}

/** The upstreams declared in `file` (null: none), watched for changes. A bad file at open is logged and kept out. */
export function openUpstreams(file: string | null, options: UpstreamsOptions = {}): Upstreams {
  const log = options.log ?? ((line: string) => console.log(line));
  const environment = options.environment ?? process.env;
  const listeners = new Set<ToolsChangedListener>();
  const changed = (upstream: string) => {
    for (const listener of listeners) listener(upstream);
  };
  const settings: ConnectionSettings = {
    environment,
    allowPrivate: options.allowPrivate ?? false,
    log,
    resolve: options.resolve,
    startTimeoutMs: options.startTimeoutMs ?? DEFAULTS.startTimeoutMs,
    restartBackoff: options.restartBackoff ?? DEFAULTS.restartBackoff,
    stableAfterMs: options.stableAfterMs ?? DEFAULTS.stableAfterMs,
    random: options.random ?? Math.random,
    now: options.now ?? Date.now,
    onToolsChanged: changed,
  };
  const connections = new Map<string, UpstreamConnection>();
  let appliedText: string | null = null;
  let closed = false;

  const apply = (upstreams: Record<string, UpstreamConfig>): void => {
    for (const [name, connection] of connections) {
      const next = upstreams[name];
      if (next && JSON.stringify(next) === JSON.stringify(connection.config)) continue;
      connections.delete(name);
      void connection.close();
      changed(name);
    }
    for (const [name, config] of Object.entries(upstreams)) {
      if (connections.has(name)) continue;
      connections.set(name, new UpstreamConnection(name, config, settings));
      changed(name);
    }
  };

  /** What the file looked like when last read; taken before reading, so a write after it is always seen. */
  let seen: string | null = null;
  const load = (when: "open" | "change"): void => {
    if (file === null || closed) return;
    seen = fileStamp(file);
    let text: string | null = null;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch {
      // readUpstreamsFile says why in its sentence.
    }
    if (text !== null && text === appliedText) return;
    const result = readUpstreamsFile(file, environment);
    if (!result.ok) {
      log(
        when === "open"
          ? `opledger: the upstreams file is refused, so no upstreams run until it is fixed: ${result.problems.join(" ")}`
          : `opledger: a change to the upstreams file is refused, and the previous upstreams stay: ${result.problems.join(" ")}`,
      );
      return;
    }
    appliedText = text;
    apply(result.config.upstreams);
  };

  load("open");
  const watchIntervalMs = options.watchIntervalMs ?? DEFAULTS.watchIntervalMs;
  // Polling its stat, like fs.watchFile, but against the stat of the last read (watchFile's first stat may come
  // after a write and miss it).
  const watch =
    file !== null && watchIntervalMs > 0
      ? setInterval(() => {
          if (fileStamp(file) !== seen) load("change");
        }, watchIntervalMs)
      : null;
  watch?.unref();

  return {
    list: () => [...connections.values()].map((c) => c.status()),
    async tools() {
      const all = await Promise.all([...connections.values()].map((c) => c.tools()));
      return all.flat();
    },
    client(upstream) {
      const connection = connections.get(upstream);
      return connection ? connection.client() : Promise.resolve(`There is no upstream "${upstream}".`);
    },
    unavailable(upstream) {
      const connection = connections.get(upstream);
      return connection ? connection.unavailable() : `There is no upstream "${upstream}" in the upstreams file.`;
    },
    callUpstreamTool(upstream, tool, args, callOptions) {
      const connection = connections.get(upstream);
      if (!connection)
        return Promise.resolve({
          outcome: "not_sent",
          reason: `There is no upstream "${upstream}" in the upstreams file.`,
        });
      return connection.call(tool, args, callOptions);
    },
    onToolsChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      if (watch) clearInterval(watch);
      const all = [...connections.values()];
      connections.clear();
      await Promise.all(all.map((c) => c.close()));
    },
  };
}
