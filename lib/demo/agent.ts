// The demo agent: a few workers making tool calls through runTool against the demo providers, and a resumer that picks
// up what the gate or a person released.
import { randomBytes } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { ApiProblem, OpledgerClient, runTool, type Operation, type RunToolResult } from "@/lib/executor";
import { letsAttemptGo } from "@/lib/retry-gate/types";
import { DEMO_AGENT_ID } from "./config";
import { DEMO_TOOLS, demoTool, pickTool, type DemoTool, type ToolCallSettings } from "./tools";

export interface DemoAgentOptions {
  ledgerUrl: string;
  /** An API key with the agent scope. Never logged. */
  apiKey: string;
  providerUrl: string;
  paymentsAuthorization: string | null;
  workers?: number;
  /** A worker pauses a random time up to this between two calls. */
  paceMs?: number;
  leaseMs?: number;
  providerTimeoutMs?: number;
  /** Longer backoffs are left to the resumer instead of holding a worker. */
  maxWaitMs?: number;
  resumeEveryMs?: number;
  /** Refunds need an approval each; no new ones while this many already wait. */
  maxWaitingRefunds?: number;
  agentId?: string;
  /** Names this process's workers (it changes with every restart, like a real deployment's pods). */
  workerPrefix?: string;
  random?: () => number;
  fetch?: typeof fetch;
  /** One line per minute of activity, and problems. */
  log?: (line: string) => void;
}

export type CallStatus = RunToolResult["status"] | "error";

export interface DemoAgentStats {
  calls: number;
  resumed: number;
  byStatus: Partial<Record<CallStatus, number>>;
  byTool: Record<string, number>;
}

/** Where resumable operations wait; an UNKNOWN one only for a PURE tool, which the gate lets retry. */
const RESUMABLE: { phase: Operation["phase"]; effect?: "PURE"; pages: number }[] = [
  { phase: "PLANNED", pages: 5 },
  { phase: "RETRY_SCHEDULED", pages: 5 },
  { phase: "UNKNOWN", effect: "PURE", pages: 2 },
  // RECONCILED keeps growing with settled operations; the newest pages hold the recent reconciliations.
  { phase: "RECONCILED", pages: 2 },
];

function newKey(tool: string, random: () => number): string {
  const noise = Math.floor(random() * 36 ** 6)
    .toString(36)
    .padStart(6, "0");
  return `${tool.split(".")[0] ?? "demo"}-${Date.now().toString(36)}-${noise}`;
}

export class DemoAgent {
  readonly stats: DemoAgentStats = { calls: 0, resumed: 0, byStatus: {}, byTool: {} };
  private readonly client: OpledgerClient;
  private readonly settings: ToolCallSettings;
  private readonly random: () => number;
  private readonly agentId: string;
  private readonly workerPrefix: string;
  private readonly log: (line: string) => void;
  private waitingRefunds = 0;
  /** Operations a worker of this process is running now: the resumer leaves them alone. */
  private readonly running = new Set<string>();
  private errorsLogged = 0;

  constructor(private readonly options: DemoAgentOptions) {
    const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.client = new OpledgerClient({ baseUrl: options.ledgerUrl, apiKey: options.apiKey, fetch: fetchFn });
    this.settings = {
      providerUrl: options.providerUrl,
      paymentsAuthorization: options.paymentsAuthorization,
      fetch: fetchFn,
    };
    this.random = options.random ?? Math.random;
    this.agentId = options.agentId ?? DEMO_AGENT_ID;
    this.workerPrefix = options.workerPrefix ?? `demo-${randomBytes(3).toString("hex")}`;
    this.log = options.log ?? ((line) => console.log(line));
  }

  /** One new tool call, start to finish (or until the gate hands it over). */
  async callOnce(worker = 0, chosen?: DemoTool, args?: Record<string, unknown>): Promise<RunToolResult | null> {
    let tool = chosen ?? pickTool(this.random);
    if (!chosen && tool.tool === "refunds.issue" && this.waitingRefunds >= (this.options.maxWaitingRefunds ?? 4)) {
      tool = pickTool(
        this.random,
        DEMO_TOOLS.filter((t) => t.tool !== "refunds.issue"),
      );
    }
    const callArgs = args ?? tool.args(this.random);
    this.stats.calls++;
    this.stats.byTool[tool.tool] = (this.stats.byTool[tool.tool] ?? 0) + 1;
    return this.execute(tool, callArgs, {
      idempotencyKey: newKey(tool.tool, this.random),
      runId: `run-${this.workerPrefix}-${worker}-${Math.floor(this.stats.calls / 10)}`,
      workerId: `${this.workerPrefix}-w${worker}`,
    });
  }

  /**
   * Re-runs this agent's operations that may go again: retries whose backoff is over, operations a person approved
   * or reconciled as not applied, and ones whose worker died before dispatching. Returns how many it re-ran.
   */
  async resumeOnce(): Promise<number> {
    const now = Date.now();
    const ready: Operation[] = [];
    for (const { phase, effect, pages } of RESUMABLE) {
      let cursor: string | undefined;
      for (let page = 0; page < pages; page++) {
        const list = await this.client.listOperations({ agentId: this.agentId, phase, effect, limit: 200, cursor });
        for (const op of list.items) if (this.resumable(op, now)) ready.push(op);
        if (!list.nextCursor) break;
        cursor = list.nextCursor;
      }
    }
    const refunds = await this.client.listOperations({
      agentId: this.agentId,
      phase: "AWAITING_APPROVAL",
      tool: "refunds.issue",
      limit: 50,
    });
    this.waitingRefunds = refunds.items.length;

    let resumed = 0;
    for (const op of ready) {
      if (!demoTool(op.tool) || this.running.has(op.id)) continue;
      resumed++;
      await this.resume(op);
    }
    return resumed;
  }

  /**
   * Runs one of this agent's operations again, with its own key and arguments: the gate decides whether anything is
   * sent (a retry waiting for a person is refused and comes back `needs_approval`). Null for a tool the demo lacks.
   */
  async resume(op: Pick<Operation, "tool" | "args" | "idempotencyKey" | "runId">): Promise<RunToolResult | null> {
    const tool = demoTool(op.tool);
    if (!tool) return null;
    this.stats.resumed++;
    return this.execute(tool, (op.args ?? {}) as Record<string, unknown>, {
      idempotencyKey: op.idempotencyKey,
      runId: op.runId ?? undefined,
      workerId: `${this.workerPrefix}-resumer`,
    });
  }

  /** Runs the workers and the resumer until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const workers = Array.from({ length: this.options.workers ?? 3 }, (_, i) => this.workerLoop(i, signal));
    const resumer = this.resumerLoop(signal);
    const reporter = this.reportLoop(signal);
    await Promise.all([...workers, resumer, reporter]);
  }

  private resumable(op: Operation, now: number): boolean {
    const leased = op.leaseExpiresAt ? Date.parse(op.leaseExpiresAt) > now : false;
    if (leased) return false;
    const { action, retryAfterMs } = op.decision;
    // A resumed run can move on by itself when the gate lets the next attempt go.
    if (letsAttemptGo(action)) return (retryAfterMs ?? 0) <= (this.options.resumeEveryMs ?? 3000);
    // A reconciled "not applied" that needs a person: one dispatch attempt moves it to the approvals queue.
    return action === "APPROVAL" && op.phase === "RECONCILED";
  }

  private async execute(
    tool: DemoTool,
    args: Record<string, unknown>,
    identity: { idempotencyKey: string; runId?: string; workerId: string },
  ): Promise<RunToolResult | null> {
    let operationId: string | null = null;
    try {
      const result = await runTool(
        tool.tool,
        args,
        (ctx) => {
          operationId = ctx.operationId;
          this.running.add(ctx.operationId);
          return tool.call(args, ctx, this.settings);
        },
        {
          client: this.client,
          workerId: identity.workerId,
          idempotencyKey: identity.idempotencyKey,
          runId: identity.runId,
          agentId: this.agentId,
          leaseMs: this.options.leaseMs ?? 10_000,
          providerTimeoutMs: this.options.providerTimeoutMs ?? 3000,
          maxWaitMs: this.options.maxWaitMs ?? 5000,
          log: () => undefined,
        },
      );
      this.count(result.status);
      return result;
    } catch (error) {
      this.count("error");
      if (this.errorsLogged < 5) {
        this.errorsLogged++;
        const what =
          error instanceof ApiProblem
            ? `${error.status} ${error.code}: ${error.detail}`
            : error instanceof Error
              ? error.message
              : String(error);
        this.log(`demo agent: ${tool.tool} failed to run: ${what}`);
      }
      return null;
    } finally {
      if (operationId) this.running.delete(operationId);
    }
  }

  private count(status: CallStatus): void {
    this.stats.byStatus[status] = (this.stats.byStatus[status] ?? 0) + 1;
  }

  private async workerLoop(worker: number, signal: AbortSignal): Promise<void> {
    // Staggered, so the workers do not move in step.
    await pause(this.random() * (this.options.paceMs ?? 2500), signal);
    while (!signal.aborted) {
      const result = await this.callOnce(worker);
      await pause(result === null ? 1000 : this.random() * (this.options.paceMs ?? 2500), signal);
    }
  }

  private async resumerLoop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.resumeOnce();
      } catch (error) {
        if (this.errorsLogged < 5) {
          this.errorsLogged++;
          this.log(`demo agent: resuming failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      await pause(this.options.resumeEveryMs ?? 3000, signal);
    }
  }

  private async reportLoop(signal: AbortSignal): Promise<void> {
    let last = { calls: 0, resumed: 0 };
    while (!signal.aborted) {
      await pause(60_000, signal);
      const calls = this.stats.calls - last.calls;
      const resumed = this.stats.resumed - last.resumed;
      last = { calls: this.stats.calls, resumed: this.stats.resumed };
      const statuses = Object.entries(this.stats.byStatus)
        .map(([status, n]) => `${status} ${n}`)
        .join(", ");
      if (!signal.aborted)
        this.log(
          `demo agent: ${calls} new tool calls and ${resumed} resumed in the last minute (since start: ${statuses})`,
        );
    }
  }
}

/** Sleeps, waking early (without throwing) when the signal aborts. */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await delay(ms, undefined, { signal });
  } catch {
    // Aborted: the loops look at the signal.
  }
}
