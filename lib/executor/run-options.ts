// The options runTool takes, and the run they resolve to once, with every default filled in, before anything is sent.
import { setTimeout as delay } from "node:timers/promises";
import { OpledgerClient, type Operation, type OpledgerClientOptions, type RunAllowanceInput } from "./client";
import type { CallProvider } from "./provider";

/** A boundary of the run: the ledger already holds what the step names, and runTool has not gone on yet. */
export type RunStep = "planned" | "claimed" | "dispatched" | "reported";

export interface RunStepEvent {
  step: RunStep;
  operation: Operation;
  /** The fencing token this run holds; null before the claim. */
  fence: number | null;
}

export interface RunToolOptions {
  /** A client, or where to reach the API. */
  client: OpledgerClient | OpledgerClientOptions;
  /** Names this worker in leases and attempt rows (default: a random id). */
  workerId?: string;
  /** Resume or deduplicate: the same key and args find the same operation. Default: the server creates one. */
  idempotencyKey?: string;
  runId?: string;
  agentId?: string;
  /**
   * With runId: the run's deadline and retry allowance, declared (PUT /api/v1/runs/{runId}) before the plan. Give it
   * on the run's first call; a later call that gives it replaces the bounds and keeps what was used.
   */
  runAllowance?: RunAllowanceInput;
  /** Lease length asked for on claim and every heartbeat (default 30 000). */
  leaseMs?: number;
  /** Default leaseMs / 3. */
  heartbeatEveryMs?: number;
  /** A provider call still running after this is abandoned and reported as `unknown` (default 30 000). */
  providerTimeoutMs?: number;
  /** The longest single backoff runTool sleeps; a longer one returns `waiting` (default 60 000). */
  maxWaitMs?: number;
  /** Injectable for tests; must settle early (resolve or reject) when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** A number in [0, 1), used for the default worker id. */
  random?: () => number;
  /** Receives one line per attempt (default console.log). */
  log?: (line: string) => void;
  /** Aborting stops runTool at the next step; a provider call in flight is aborted and reported as `unknown`. */
  signal?: AbortSignal;
  /**
   * Observes each boundary (planned, claimed, dispatched before the provider is called, reported), awaited before
   * runTool goes on: for tracing, and for crash tests that kill the process exactly there (e2e/crash). A throw ends
   * the run with that error, as a crash would.
   */
  onStep?: (event: RunStepEvent) => void | Promise<void>;
}

/** One run of one tool call: what every step of it needs, read from the options once. */
export interface ToolRun {
  readonly tool: string;
  readonly callProvider: CallProvider;
  /** The plan's keys and onStep are read from here at the moment they are needed, not copied. */
  readonly options: RunToolOptions;
  readonly client: OpledgerClient;
  readonly workerId: string;
  readonly leaseMs: number;
  readonly heartbeatEveryMs: number;
  readonly providerTimeoutMs: number;
  readonly maxWaitMs: number;
  readonly sleep: NonNullable<RunToolOptions["sleep"]>;
  readonly log: (line: string) => void;
  readonly signal: AbortSignal | undefined;
}

export function prepareRun(tool: string, callProvider: CallProvider, options: RunToolOptions): ToolRun {
  const client = options.client instanceof OpledgerClient ? options.client : new OpledgerClient(options.client);
  const workerId = options.workerId ?? randomWorkerId(options.random ?? Math.random);
  const leaseMs = options.leaseMs ?? 30_000;
  return {
    tool,
    callProvider,
    options,
    client,
    workerId,
    leaseMs,
    heartbeatEveryMs: options.heartbeatEveryMs ?? Math.max(1, Math.floor(leaseMs / 3)),
    providerTimeoutMs: options.providerTimeoutMs ?? 30_000,
    maxWaitMs: options.maxWaitMs ?? 60_000,
    sleep: options.sleep ?? ((ms, signal) => delay(ms, undefined, { signal })),
    log: options.log ?? ((line) => console.log(line)),
    signal: options.signal,
  };
}

function randomWorkerId(random: () => number): string {
  let id = "";
  for (let i = 0; i < 12; i++) id += Math.floor(random() * 36).toString(36);
  return `worker-${id}`;
}
