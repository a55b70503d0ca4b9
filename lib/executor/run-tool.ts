// runTool: runs one side-effecting tool call through the ledger API (plan, claim, dispatch, call, report) and obeys the gate.
import { setTimeout as delay } from "node:timers/promises";
import type { Phase } from "../retry-gate/types";
import {
  ApiProblem,
  OpledgerClient,
  type Decision,
  type Lease,
  type Operation,
  type OpledgerClientOptions,
  type OutcomeInput,
} from "./client";

/** What the provider answered. `ok: false` means a definite error answer from the provider (nothing applied). */
export type ProviderResult = { ok: true; providerId?: string; value?: unknown } | { ok: false; error: ProviderError };

export interface ProviderError {
  kind?: string;
  httpStatus?: number;
  message?: string;
  /** The provider's Retry-After, in milliseconds. */
  retryAfterMs?: number;
}

export interface ProviderCallContext {
  /** Send this to the provider (Idempotency-Key header, client token, ...): every attempt of the operation reuses it. */
  idempotencyKey: string;
  attempt: number;
  operationId: string;
  /** Aborted when the call times out, the lease is taken over, or the caller aborts: stop sending. */
  signal: AbortSignal;
}

export type CallProvider = (ctx: ProviderCallContext) => Promise<ProviderResult>;

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

/** Enough of the operation to tell a person which one, and where it stands. */
export interface OperationSummary {
  id: string;
  tool: string;
  phase: Phase;
  attempt: number;
  idempotencyKey: string;
  providerId: string | null;
}

interface ResultBase {
  operation: OperationSummary;
  /** The gate's decision: what happens next and why, in a sentence a person can read. */
  decision: Decision;
}

export type LeaseLossCode = "lease_held" | "stale_fence" | "lease_expired";

export type RunToolResult =
  /** The effect happened. `value` is what the provider returned (undefined when an earlier run confirmed it). */
  | (ResultBase & { status: "confirmed"; providerId: string | null; value: unknown })
  /** The outcome is ambiguous: a lookup or a person must prove what happened before anything is repeated. */
  | (ResultBase & { status: "needs_reconcile" })
  /** Handed over to a person: the next attempt needs an approval. */
  | (ResultBase & { status: "needs_approval" })
  /** The dependency's circuit breaker is open. */
  | (ResultBase & { status: "unavailable" })
  /** Ended without the effect (fatal error or budget spent). */
  | (ResultBase & { status: "failed" })
  /** A person rejected the operation; `reason` is theirs. */
  | (ResultBase & { status: "rejected"; reason: string })
  /** Another worker holds or took over the lease: this worker must not touch the operation. */
  | (ResultBase & { status: "lease_lost"; code: LeaseLossCode })
  /** The next attempt is due later than maxWaitMs: run again (same idempotencyKey) after retryAfterMs. */
  | (ResultBase & { status: "waiting"; retryAfterMs: number });

const DEFAULT_WAIT_MS = 1000;
/** Delays between re-sends of an outcome report that did not reach the ledger. */
const OUTCOME_REPORT_DELAYS_MS = [250, 1000, 3000];

/**
 * Runs one tool call under the ledger's control. The operation is planned before anything leaves; every attempt is
 * dispatched through the gate, sent with the operation's idempotency key, and reported. A call that throws or times
 * out is reported as `unknown`, never `failed`: the request may have reached the provider.
 *
 * Resolves with where the operation stands; rejects with an ApiProblem for answers it cannot act on (401, 403,
 * 422 no_contract, ...), with a network error when the ledger is unreachable, or with the abort reason.
 */
export async function runTool(
  tool: string,
  args: unknown,
  callProvider: CallProvider,
  options: RunToolOptions,
): Promise<RunToolResult> {
  const run = new ToolRun(tool, callProvider, options);
  return run.start(args);
}

type ProviderCall =
  | { kind: "answered"; result: ProviderResult }
  | { kind: "ambiguous"; error: { kind: string; message: string } }
  | { kind: "lease_lost" };

class ToolRun {
  private readonly client: OpledgerClient;
  private readonly workerId: string;
  private readonly leaseMs: number;
  private readonly heartbeatEveryMs: number;
  private readonly providerTimeoutMs: number;
  private readonly maxWaitMs: number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly log: (line: string) => void;
  private readonly signal: AbortSignal | undefined;

  constructor(
    private readonly tool: string,
    private readonly callProvider: CallProvider,
    private readonly options: RunToolOptions,
  ) {
    this.client = options.client instanceof OpledgerClient ? options.client : new OpledgerClient(options.client);
    this.workerId = options.workerId ?? randomWorkerId(options.random ?? Math.random);
    this.leaseMs = options.leaseMs ?? 30_000;
    this.heartbeatEveryMs = options.heartbeatEveryMs ?? Math.max(1, Math.floor(this.leaseMs / 3));
    this.providerTimeoutMs = options.providerTimeoutMs ?? 30_000;
    this.maxWaitMs = options.maxWaitMs ?? 60_000;
    this.sleep = options.sleep ?? ((ms, signal) => delay(ms, undefined, { signal }));
    this.log = options.log ?? ((line) => console.log(line));
    this.signal = options.signal;
  }

  async start(args: unknown): Promise<RunToolResult> {
    this.signal?.throwIfAborted();
    const { operation: planned } = await this.client.planOperation(
      {
        tool: this.tool,
        args,
        idempotencyKey: this.options.idempotencyKey,
        runId: this.options.runId,
        agentId: this.options.agentId,
      },
      this.signal,
    );
    await this.options.onStep?.({ step: "planned", operation: planned, fence: null });
    // A finished operation (a re-run with the same key) is answered from the ledger: nothing is sent again.
    if (planned.decision.action === "STOP") return resultFor(planned, planned.decision);

    let lease: Lease;
    try {
      lease = await this.client.claim(planned.id, { workerId: this.workerId, leaseMs: this.leaseMs }, this.signal);
    } catch (error) {
      if (error instanceof ApiProblem && error.code === "lease_held") {
        return leaseLost(await this.snapshot(planned), "lease_held", error.decision);
      }
      if (error instanceof ApiProblem && error.code === "already_finished") {
        // Finished between plan and claim (another worker, or a person rejected it).
        const operation = await this.snapshot(planned);
        return resultFor(operation, operation.decision);
      }
      throw error;
    }
    const fence = lease.fence;
    await this.options.onStep?.({ step: "claimed", operation: lease.operation ?? planned, fence });

    const keeper = new LeaseKeeper(this.client, planned.id, fence, this.leaseMs, this.heartbeatEveryMs);
    keeper.start();
    try {
      return await this.attempts(planned, fence, keeper);
    } finally {
      await keeper.stop();
    }
  }

  /** The dispatch / call / report loop, until the gate says something other than "go again". */
  private async attempts(planned: Operation, fence: number, keeper: LeaseKeeper): Promise<RunToolResult> {
    let current = planned;
    let waitedMs = 0;
    for (;;) {
      this.signal?.throwIfAborted();
      if (keeper.lost) return leaseLost(await this.snapshot(current), keeper.lost, null);

      let dispatched: Operation;
      try {
        dispatched = await this.client.dispatch(current.id, { fence }, this.signal);
      } catch (error) {
        if (!(error instanceof ApiProblem) || error.status !== 409) throw error;
        const refusal = await this.onRefusal(error, current, keeper);
        if (refusal.kind === "settled") return refusal.result;
        waitedMs += refusal.waitedMs;
        continue;
      }

      current = dispatched;
      await this.options.onStep?.({ step: "dispatched", operation: dispatched, fence });
      const call = await this.callBounded(dispatched, keeper);
      if (call.kind === "lease_lost") {
        this.logAttempt(dispatched.attempt, "lease taken over, outcome not reported", waitedMs, null);
        return leaseLost(await this.snapshot(current), keeper.lost ?? "stale_fence", null);
      }

      const outcome = outcomeBody(fence, call);
      const report = await this.report(dispatched, outcome);
      if (report.kind === "lease_lost") {
        this.logAttempt(dispatched.attempt, `${outcome.result}, report refused (${report.code})`, waitedMs, null);
        return leaseLost(await this.snapshot(current), report.code, report.decision);
      }
      current = report.operation;
      await this.options.onStep?.({ step: "reported", operation: current, fence });
      const decision = current.decision;
      this.logAttempt(dispatched.attempt, describeOutcome(outcome), waitedMs, decision);
      waitedMs = 0;

      switch (decision.action) {
        case "STOP":
        case "RECONCILE":
        case "APPROVAL":
        case "UNAVAILABLE":
          return call.kind === "answered" && call.result.ok
            ? resultFor(current, decision, call.result)
            : resultFor(current, decision);
        case "DISPATCH":
        case "RETRY":
        case "RETRY_SAME_KEY":
        case "WAIT": {
          const waitMs = decision.retryAfterMs ?? (decision.action === "WAIT" ? DEFAULT_WAIT_MS : 0);
          if (waitMs > this.maxWaitMs) return waiting(current, decision, waitMs);
          // The gate may want a retry, but a caller that aborted wants none.
          this.signal?.throwIfAborted();
          await this.pause(waitMs, keeper);
          waitedMs = waitMs;
          continue;
        }
        default: {
          const unhandled: never = decision.action;
          throw new Error(`unhandled decision ${String(unhandled)}`);
        }
      }
    }
  }

  /** A 409 from dispatch: wait and try again, or hand the operation over with the gate's decision. */
  private async onRefusal(
    problem: ApiProblem,
    current: Operation,
    keeper: LeaseKeeper,
  ): Promise<{ kind: "settled"; result: RunToolResult } | { kind: "again"; waitedMs: number }> {
    switch (problem.code) {
      case "retry_not_due":
      case "breaker_open": {
        const waitMs = problem.decision?.retryAfterMs ?? DEFAULT_WAIT_MS;
        if (waitMs > this.maxWaitMs) {
          const operation = await this.snapshot(current);
          const decision = problem.decision ?? operation.decision;
          const result: RunToolResult =
            problem.code === "breaker_open"
              ? { status: "unavailable", operation: summarize(operation), decision }
              : waiting(operation, decision, waitMs);
          return { kind: "settled", result };
        }
        await this.pause(waitMs, keeper);
        return { kind: "again", waitedMs: waitMs };
      }
      case "stale_fence":
      case "lease_expired":
        return {
          kind: "settled",
          result: leaseLost(await this.snapshot(current), problem.code, problem.decision),
        };
      case "approval_required":
      case "reconcile_required": {
        const operation = await this.snapshot(current);
        const decision = problem.decision ?? operation.decision;
        const status = problem.code === "approval_required" ? "needs_approval" : "needs_reconcile";
        return { kind: "settled", result: { status, operation: summarize(operation), decision } };
      }
      default: {
        // budget_spent, already_finished, and any refusal code added later: the decision says where it stands.
        const operation = await this.snapshot(current);
        const decision = problem.decision ?? operation.decision;
        if (!problem.decision && !settles(decision)) throw problem;
        return { kind: "settled", result: resultFor(operation, decision) };
      }
    }
  }

  /** Calls the provider with a deadline; a hung provider that ignores its signal is abandoned all the same. */
  private async callBounded(operation: Operation, keeper: LeaseKeeper): Promise<ProviderCall> {
    const controller = new AbortController();
    let cause: "timeout" | "lease_lost" | "caller" | null = null;
    const stop = (why: "timeout" | "lease_lost" | "caller", reason: unknown) => {
      if (controller.signal.aborted) return;
      cause = why;
      controller.abort(reason);
    };
    const timer = setTimeout(
      () =>
        stop("timeout", new DOMException(`provider call timed out after ${this.providerTimeoutMs} ms`, "TimeoutError")),
      this.providerTimeoutMs,
    );
    const onCallerAbort = () => stop("caller", this.signal?.reason);
    this.signal?.addEventListener("abort", onCallerAbort, { once: true });
    if (this.signal?.aborted) onCallerAbort();
    const stopListening = keeper.onLost(() =>
      stop("lease_lost", new DOMException("the lease was taken over by another worker", "AbortError")),
    );
    const aborted = new Promise<{ settled: "aborted" }>((resolve) => {
      if (controller.signal.aborted) resolve({ settled: "aborted" });
      controller.signal.addEventListener("abort", () => resolve({ settled: "aborted" }), { once: true });
    });

    try {
      const settled = await Promise.race([
        Promise.resolve()
          .then(() =>
            this.callProvider({
              idempotencyKey: operation.idempotencyKey,
              attempt: operation.attempt,
              operationId: operation.id,
              signal: controller.signal,
            }),
          )
          .then(
            (value: unknown) => ({ settled: "returned" as const, value }),
            (error: unknown) => ({ settled: "threw" as const, error }),
          ),
        aborted,
      ]);
      if (cause === "lease_lost" || keeper.lost) return { kind: "lease_lost" };
      if (settled.settled === "returned") {
        const result = asProviderResult(settled.value);
        if (result) return { kind: "answered", result };
        return {
          kind: "ambiguous",
          error: { kind: "invalid_provider_result", message: "the provider function returned no { ok } result" },
        };
      }
      if (cause === "timeout") {
        return {
          kind: "ambiguous",
          error: { kind: "timeout", message: `no answer within ${this.providerTimeoutMs} ms` },
        };
      }
      if (cause === "caller") {
        return { kind: "ambiguous", error: { kind: "aborted", message: "the caller aborted the run mid-call" } };
      }
      const error = settled.settled === "threw" ? settled.error : undefined;
      return { kind: "ambiguous", error: { kind: thrownKind(error), message: thrownMessage(error) } };
    } finally {
      clearTimeout(timer);
      this.signal?.removeEventListener("abort", onCallerAbort);
      stopListening();
    }
  }

  /**
   * Reports the outcome. The provider has already been called, so a report that does not reach the ledger is
   * sent again a few times: without it the lease expires and the operation becomes UNKNOWN for a person to resolve.
   * Not tied to the caller's signal for the same reason.
   */
  private async report(
    dispatched: Operation,
    body: OutcomeInput,
  ): Promise<
    | { kind: "reported"; operation: Operation }
    | { kind: "lease_lost"; code: "stale_fence" | "lease_expired"; decision: Decision | null }
  > {
    for (let sent = 0; ; sent++) {
      try {
        return { kind: "reported", operation: await this.client.reportOutcome(dispatched.id, body) };
      } catch (error) {
        if (error instanceof ApiProblem) {
          if (error.code === "stale_fence" || error.code === "lease_expired") {
            return { kind: "lease_lost", code: error.code, decision: error.decision };
          }
          // A conflict after a re-send: the earlier report most likely landed and its answer was lost.
          if (sent > 0 && error.status === 409) {
            return { kind: "reported", operation: await this.client.getOperation(dispatched.id) };
          }
          if (error.status < 500) throw error;
        }
        const delayMs = OUTCOME_REPORT_DELAYS_MS[sent];
        if (delayMs === undefined) throw error;
        await this.sleep(delayMs);
      }
    }
  }

  /** Sleeps, ending early when the caller aborts or the lease is lost; the loop then looks at why. */
  private async pause(ms: number, keeper: LeaseKeeper): Promise<void> {
    const signal = this.signal ? AbortSignal.any([this.signal, keeper.signal]) : keeper.signal;
    try {
      await this.sleep(ms, signal);
    } catch (error) {
      if (!signal.aborted) throw error;
    }
  }

  /** The operation as the ledger has it now, for a result; the last known state if the ledger cannot say. */
  private async snapshot(fallback: Operation): Promise<Operation> {
    try {
      return await this.client.getOperation(fallback.id);
    } catch {
      // Only used to describe a result that is already decided; a failed read must not hide it.
      return fallback;
    }
  }

  private logAttempt(attempt: number, what: string, waitedMs: number, decision: Decision | null): void {
    const next = decision
      ? `; gate: ${decision.action}${decision.retryAfterMs !== undefined ? ` in ${decision.retryAfterMs} ms` : ""} (${decision.reason})`
      : "";
    this.log(`[opledger] ${this.tool} attempt ${attempt}: ${what}; backoff waited ${waitedMs} ms${next}`);
  }
}

/** Heartbeats the lease from claim to the end of the run, so backoff sleeps do not let it expire. */
class LeaseKeeper {
  /** Set once the ledger said this worker's fence is stale. */
  lost: LeaseLossCode | null = null;
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private inFlight: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly client: OpledgerClient,
    private readonly operationId: string,
    private readonly fence: number,
    private readonly leaseMs: number,
    private readonly everyMs: number,
  ) {}

  /** Aborted when the lease is lost. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  start(): void {
    this.schedule();
  }

  onLost(listener: () => void): () => void {
    if (this.lost) {
      listener();
      return () => undefined;
    }
    this.controller.signal.addEventListener("abort", listener, { once: true });
    return () => this.controller.signal.removeEventListener("abort", listener);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.inFlight;
  }

  private schedule(): void {
    if (this.stopped || this.lost) return;
    this.timer = setTimeout(() => {
      this.inFlight = this.beat().finally(() => {
        this.inFlight = undefined;
        this.schedule();
      });
    }, this.everyMs);
  }

  private async beat(): Promise<void> {
    try {
      await this.client.heartbeat(this.operationId, { fence: this.fence, leaseMs: this.leaseMs });
    } catch (error) {
      if (error instanceof ApiProblem && error.code === "stale_fence") {
        this.lost = "stale_fence";
        this.controller.abort(new DOMException("the lease was taken over by another worker", "AbortError"));
      }
      // Any other failure (network, 5xx): the next beat tries again; the lease is long enough to miss one.
    }
  }
}

/** Only an explicit error answer is `failed`; a throw or a timeout is `unknown` because the request may have landed. */
function outcomeBody(fence: number, call: Exclude<ProviderCall, { kind: "lease_lost" }>): OutcomeInput {
  if (call.kind === "ambiguous") return { fence, result: "unknown", error: call.error };
  const result = call.result;
  if (result.ok) return { fence, result: "confirmed", providerId: result.providerId };
  return { fence, result: "failed", error: result.error };
}

function describeOutcome(outcome: OutcomeInput): string {
  if (!outcome.error) return outcome.result;
  const status = outcome.error.httpStatus !== undefined ? `, HTTP ${outcome.error.httpStatus}` : "";
  return `${outcome.result} (${outcome.error.kind ?? "unclassified"}${status})`;
}

/** Maps where the operation stands to what the caller is told. */
function resultFor(operation: Operation, decision: Decision, answer?: ProviderResult): RunToolResult {
  const summary = summarize(operation);
  switch (decision.action) {
    case "STOP":
      if (operation.phase === "CONFIRMED" || (operation.phase === "RECONCILED" && operation.evidence === "applied")) {
        const providerId = (answer?.ok ? answer.providerId : undefined) ?? operation.providerId ?? null;
        return {
          status: "confirmed",
          operation: summary,
          decision,
          providerId,
          value: answer?.ok ? answer.value : undefined,
        };
      }
      if (operation.phase === "REJECTED") {
        return {
          status: "rejected",
          operation: summary,
          decision,
          reason: operation.rejectionReason ?? decision.reason,
        };
      }
      return { status: "failed", operation: summary, decision };
    case "RECONCILE":
      return { status: "needs_reconcile", operation: summary, decision };
    case "APPROVAL":
      return { status: "needs_approval", operation: summary, decision };
    case "UNAVAILABLE":
      return { status: "unavailable", operation: summary, decision };
    case "DISPATCH":
    case "RETRY":
    case "RETRY_SAME_KEY":
    case "WAIT":
      return waiting(operation, decision, decision.retryAfterMs ?? 0);
    default: {
      const unhandled: never = decision.action;
      throw new Error(`unhandled decision ${String(unhandled)}`);
    }
  }
}

/** Whether a decision ends this run (as opposed to "go again"). */
function settles(decision: Decision): boolean {
  return ["STOP", "RECONCILE", "APPROVAL", "UNAVAILABLE"].includes(decision.action);
}

function waiting(operation: Operation, decision: Decision, retryAfterMs: number): RunToolResult {
  return { status: "waiting", operation: summarize(operation), decision, retryAfterMs };
}

function leaseLost(operation: Operation, code: LeaseLossCode, decision: Decision | null): RunToolResult {
  return { status: "lease_lost", operation: summarize(operation), decision: decision ?? operation.decision, code };
}

function summarize(operation: Operation): OperationSummary {
  return {
    id: operation.id,
    tool: operation.tool,
    phase: operation.phase,
    attempt: operation.attempt,
    idempotencyKey: operation.idempotencyKey,
    providerId: operation.providerId ?? null,
  };
}

/** Checks the provider function's answer at run time: a plain-JS caller can return anything. */
function asProviderResult(value: unknown): ProviderResult | null {
  if (typeof value !== "object" || value === null || !("ok" in value)) return null;
  if (value.ok === true) {
    const providerId = "providerId" in value && typeof value.providerId === "string" ? value.providerId : undefined;
    return { ok: true, providerId, value: "value" in value ? value.value : undefined };
  }
  if (value.ok === false && "error" in value && typeof value.error === "object" && value.error !== null) {
    const e = value.error;
    return {
      ok: false,
      error: {
        kind: "kind" in e && typeof e.kind === "string" ? e.kind : undefined,
        httpStatus: "httpStatus" in e && typeof e.httpStatus === "number" ? e.httpStatus : undefined,
        message: "message" in e && typeof e.message === "string" ? e.message : undefined,
        retryAfterMs: "retryAfterMs" in e && typeof e.retryAfterMs === "number" ? e.retryAfterMs : undefined,
      },
    };
  }
  return null;
}

/** Node's common network codes, in the gate's error vocabulary; anything else is passed on as it was thrown. */
const NODE_ERROR_KINDS: Record<string, string> = {
  ECONNRESET: "connection_reset",
  EPIPE: "connection_reset",
  UND_ERR_SOCKET: "connection_reset",
  ECONNREFUSED: "connection_refused",
  ETIMEDOUT: "timeout",
  ESOCKETTIMEDOUT: "timeout",
  UND_ERR_CONNECT_TIMEOUT: "timeout",
  UND_ERR_HEADERS_TIMEOUT: "timeout",
  UND_ERR_BODY_TIMEOUT: "timeout",
  TimeoutError: "timeout",
};

/** The thrown error's code (also from its cause, as fetch wraps them) or name. */
function thrownKind(error: unknown): string {
  const raw = errorCode(error) ?? errorCode(error instanceof Error ? error.cause : undefined) ?? errorName(error);
  if (raw === undefined) return "unclassified";
  return NODE_ERROR_KINDS[raw] ?? raw;
}

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined;
}

function errorName(error: unknown): string | undefined {
  return error instanceof Error && error.name !== "Error" ? error.name : undefined;
}

function thrownMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === "string" ? error : "the provider call threw a non-Error value";
}

function randomWorkerId(random: () => number): string {
  let id = "";
  for (let i = 0; i < 12; i++) id += Math.floor(random() * 36).toString(36);
  return `worker-${id}`;
}
