// One `tools/call` through the gateway, which is the executor: plan, claim, dispatch, call the upstream, report the
// outcome, retry what the gate allows within the call's deadline, and answer the model.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { KeyActor } from "@/lib/platform/auth/api-keys";
import { dispatchOperation, type DispatchResult } from "@/lib/ledger/commands/dispatch";
import type { OutcomeInput } from "@/lib/ledger/commands/outcome";
import { reportOutcome } from "@/lib/ledger/commands/outcome";
import { claimLease, releaseLease } from "@/lib/ledger/commands/lease";
import { planAndDispatch, type GatewayPlan } from "@/lib/ledger/commands/gateway-call";
import type { PlanInput } from "@/lib/ledger/commands/plan";
import type { ContractView } from "@/lib/ledger/contracts/contract-schema";
import { LedgerError, type LedgerErrorCode } from "@/lib/ledger/errors";
import { newId } from "@/lib/ledger/ids";
import type { Ledger } from "@/lib/ledger/ledger";
import type { OperationView } from "@/lib/ledger/reads/operation-view";
import type { Upstreams } from "@/lib/services/upstreams/registry";
import type { UpstreamCall } from "@/lib/services/upstreams/types";
import { refusalResult, type GatewayCode, type GatewayRefusal } from "./model-answer";
import { deliveryBeingCleared, deliveryBeingRecorded, type ResponseDeliveries } from "./delivered-answers";
import { answerFromState, heldFor } from "./operation-answer";
import { upstreamReport } from "./upstream-report";
import { upstreamSpan } from "./upstream-span";

/** The lease outlives the call's deadline by this much, so the gateway's own report is never refused as late. */
const LEASE_MARGIN_MS = 5000;
/** Below this, another attempt could not get an answer before the deadline. */
const MIN_ATTEMPT_MS = 100;

export interface GatewayContext {
  ledger: Ledger;
  actor: KeyActor;
  upstreams: Pick<Upstreams, "callUpstreamTool" | "tools" | "unavailable" | "list" | "client">;
  /** This gateway instance as a worker (`mcp:<host>:<instance id>`); each call leases under its own id below it. */
  worker: string;
  log: (line: string) => void;
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
  /** The answers this request's response carries, recorded as delivered once it finished (delivered-answers.ts). */
  deliveries?: ResponseDeliveries;
}

/** A gateway request's context: the caller, the upstreams, and the run its calls belong to. */
export interface GatewayServerContext extends GatewayContext {
  /** The run this request's calls belong to (the MCP session, X-Opledger-Run, or the key's day). */
  run: string;
}

export interface GatewayCall {
  /** `<upstream>__<tool>`, already checked to be an upstream's tool with a contract. */
  name: string;
  upstream: string;
  tool: string;
  args: Record<string, unknown>;
  key: string;
  /** The key names the call within its run (call-key.ts): a repeat after its answer was delivered is a new call. */
  byDefault: boolean;
  run: string;
  contract: ContractView;
  meta?: Record<string, unknown>;
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The dispatch refusals a model is told about; any other one is a fault of the gateway, not of the call. */
const MODEL_CODES: Partial<Record<LedgerErrorCode, GatewayCode>> = {
  approval_required: "approval_required",
  budget_spent: "approval_required",
  reconcile_required: "outcome_unknown",
  breaker_open: "breaker_open",
  approval_expired: "approval_expired",
  in_flight: "in_flight",
  lease_held: "in_flight",
  stale_fence: "in_flight",
  lease_expired: "in_flight",
  retry_not_due: "retry_not_due",
};

/** Why an existing operation's claim is refused when the same call comes again: its state answers the call. */
const CLAIM_REFUSALS = new Set<LedgerErrorCode>(["already_finished", "approval_expired", "lease_held"]);

/**
 * Answers after which the operation waits for someone (a person, a backoff, a breaker) and this call no longer does:
 * it gives the lease up, so whoever comes next (the same call again, a task's poll) claims it at once.
 */
const STOPPED_WAITING = new Set<GatewayCode>([
  "approval_required",
  "suspected_duplicate",
  "retry_not_due",
  "breaker_open",
]);

/** How often a call whose operation another call is running looks at the ledger again: from the first to the last. */
const WAIT_POLL_MS = { first: 20, max: 250 } as const;

/** The run lease of a call: its whole deadline and a margin, so the gateway's own report is never refused as late. */
function leaseMsFor(contract: Pick<ContractView, "timeoutMs">): number {
  return contract.timeoutMs + LEASE_MARGIN_MS;
}

/** The lease a call takes: its own worker id (never shared with another call, here or on another instance). */
function claimOf(ctx: GatewayContext, call: GatewayCall) {
  return { workerId: `${ctx.worker}:${newId()}`, leaseMs: leaseMsFor(call.contract) };
}

/**
 * The plan of a gateway call, with the claim in the same transaction: the key (or, for the default key, the call, which
 * the ledger resolves to its operation), the run, `via: "mcp"`.
 */
export function planInputOf(
  ctx: GatewayContext,
  call: GatewayCall,
): PlanInput & { claim: NonNullable<PlanInput["claim"]> } {
  return {
    tool: call.name,
    args: call.args,
    ...(call.byDefault ? { callKey: call.key } : { idempotencyKey: call.key }),
    runId: call.run,
    via: "mcp",
    claim: claimOf(ctx, call),
  };
}

/**
 * The call's operation, leased to this call (a new one dispatched in the same transaction); or the answer when it
 * cannot run now. An operation another call is running
 * (the same call sent twice at once, here or on another instance) is waited for, until the deadline: then this call is
 * answered from it, as its retry. An answered operation whose delivery this instance is still recording is waited for
 * too, so the same call made again at once is the new call it is.
 */
async function leasedOperation(
  ctx: GatewayContext,
  call: GatewayCall,
  deadline: number,
): Promise<GatewayPlan | { answer: CallToolResult }> {
  const now = ctx.now ?? (() => new Date());
  const sleep = ctx.sleep ?? wait;
  let refusal: LedgerError;
  try {
    return await planAndDispatch(ctx.ledger, planInputOf(ctx, call), ctx.actor, now());
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    if (error.code === "idempotency_key_reused") {
      const operationId = error.extra.operationId;
      return { answer: refusalResult({ code: error.code, tool: call.name, ...(operationId ? { operationId } : {}) }) };
    }
    if (!CLAIM_REFUSALS.has(error.code) || typeof error.extra.operationId !== "string") throw error;
    refusal = error;
  }
  const id = refusal.extra.operationId as string;
  // Sent while the same call was running: a retry of it, answered from it whatever becomes of its answer.
  const concurrent = refusal.code === "lease_held";
  for (
    let pause: number = WAIT_POLL_MS.first;
    refusal.code === "lease_held";
    pause = Math.min(pause * 2, WAIT_POLL_MS.max)
  ) {
    if (now().getTime() + pause >= deadline) break;
    await sleep(pause);
    try {
      return { operation: (await claimLease(ctx.ledger, id, claimOf(ctx, call), ctx.actor, now())).operation };
    } catch (error) {
      if (!(error instanceof LedgerError) || !CLAIM_REFUSALS.has(error.code)) throw error;
      refusal = error;
    }
  }
  const recording = call.byDefault && !concurrent ? deliveryBeingRecorded(id) : undefined;
  if (recording && refusal.code === "already_finished") {
    await recording;
    return leasedOperation(ctx, call, deadline);
  }
  return { answer: await answerFromState(ctx.ledger, ctx.actor, call.name, id, now()) };
}

export async function callThroughGateway(ctx: GatewayContext, call: GatewayCall): Promise<CallToolResult> {
  const now = ctx.now ?? (() => new Date());
  const deadline = now().getTime() + call.contract.timeoutMs;
  // This instance may be taking back the delivery of the same call's last answer (its client never got it): this call
  // is then its retry, so it waits for the ledger to say so.
  const clearing = call.byDefault ? deliveryBeingCleared(call.key) : undefined;
  if (clearing) await clearing;
  const leased = await leasedOperation(ctx, call, deadline);
  if ("answer" in leased) return leased.answer;
  const { operation } = leased;
  const answer = await attempts(ctx, call, operation, deadline, leased.dispatched);
  const code = answer._meta?.["opledger/code"] as GatewayCode | undefined;
  if (code !== undefined && STOPPED_WAITING.has(code)) await released(ctx, operation);
  return answer;
}

/** Gives the call's lease up; one that is no longer this call's (fenced out, or the operation moved on) is left. */
async function released(ctx: GatewayContext, operation: OperationView): Promise<void> {
  const now = ctx.now ?? (() => new Date());
  try {
    await releaseLease(ctx.ledger, operation.id, { fence: operation.fence }, ctx.actor, now());
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    ctx.log(`opledger mcp: the lease on ${operation.id} was not released: ${error.message}`);
  }
}

/**
 * Dispatch (the first one may have been committed with the plan), call the upstream, report; again while the gate
 * allows it within the deadline; then the answer.
 */
async function attempts(
  ctx: GatewayContext,
  call: GatewayCall,
  leased: OperationView,
  deadline: number,
  firstDispatch?: DispatchResult,
): Promise<CallToolResult> {
  const now = ctx.now ?? (() => new Date());
  const sleep = ctx.sleep ?? wait;
  const fence = leased.fence;
  let operation = leased;
  let lastAnswer: CallToolResult | null = null;
  for (let first = firstDispatch; ; first = undefined) {
    const dispatched = first ?? (await dispatchOperation(ctx.ledger, operation.id, { fence }, ctx.actor, now()));
    if ("refused" in dispatched) {
      const { code, extra } = dispatched.refused;
      const decision = extra.decision;
      const retryAfterMs = decision?.retryAfterMs ?? 0;
      if (code === "retry_not_due" && now().getTime() + retryAfterMs + MIN_ATTEMPT_MS < deadline) {
        await sleep(retryAfterMs);
        continue;
      }
      if (code === "already_finished") return answerFromState(ctx.ledger, ctx.actor, call.name, operation.id, now());
      const answer = MODEL_CODES[code];
      if (answer === undefined) throw dispatched.refused;
      return refusalResult({
        code: answer,
        tool: call.name,
        operationId: operation.id,
        ...(answer === "approval_required" ? heldFor(operation) : {}),
        ...(decision ? { decision } : {}),
        ...(lastAnswer ? { upstream: lastAnswer } : {}),
      });
    }
    operation = dispatched.operation;
    const remaining = Math.max(MIN_ATTEMPT_MS, deadline - now().getTime());
    // Every attempt carries the operation's one key, so an upstream that dedupes by key converges (IDEMPOTENT).
    const { traceArguments } = call.contract;
    const sent = await upstreamSpan(
      { tool: call.tool, operationId: operation.id, attempt: operation.attempt, args: call.args, traceArguments },
      (traceMeta) =>
        ctx.upstreams.callUpstreamTool(call.upstream, call.tool, call.args, {
          timeoutMs: remaining,
          meta: {
            ...call.meta,
            ...traceMeta,
            "opledger/idempotencyKey": operation.idempotencyKey,
            "opledger/operation": operation.id,
          },
        }),
    );
    lastAnswer = sent.outcome === "answered" && sent.result.isError ? sent.result : null;
    // A final answer under the default key goes straight to its client: its outcome's write marks it delivered.
    const delivered = call.byDefault && ctx.deliveries?.markWithOutcome() === true;
    const report: OutcomeInput = { fence, ...upstreamReport(sent), ...(delivered ? { delivered } : {}) };
    operation = await reportOutcome(ctx.ledger, operation.id, report, ctx.actor, now());
    if (delivered && operation.deliveredAt !== null) ctx.deliveries?.marked.set(operation.id, call.key);
    ctx.log(attemptLine(call.name, operation, sent));
    if (operation.phase === "CONFIRMED" && sent.outcome === "answered") {
      return withOperation(sent.result, operation.id);
    }
    const next = nextStep(operation, now().getTime(), deadline);
    if (next === "again") {
      await sleep(operation.decision.retryAfterMs ?? 0);
      continue;
    }
    return refusalResult({ ...next, tool: call.name, ...(lastAnswer ? { upstream: lastAnswer } : {}) });
  }
}

/** After a reported attempt: go again (the gate allows it and there is time), or what to tell the model. */
function nextStep(op: OperationView, now: number, deadline: number): "again" | Omit<GatewayRefusal, "tool"> {
  const base = { operationId: op.id, decision: op.decision };
  switch (op.decision.action) {
    case "RETRY":
    case "RETRY_SAME_KEY":
    case "DISPATCH":
      return now + (op.decision.retryAfterMs ?? 0) + MIN_ATTEMPT_MS < deadline
        ? "again"
        : { ...base, code: "retry_not_due" };
    case "RECONCILE":
      return { ...base, code: "outcome_unknown" };
    case "APPROVAL":
      return { ...base, code: "approval_required" };
    case "UNAVAILABLE":
      return { ...base, code: "breaker_open" };
    case "WAIT":
      return { ...base, code: "in_flight" };
    case "STOP":
      return {
        ...base,
        code: "failed",
        ...(op.lastError?.message ? { detail: `The last error: ${op.lastError.message}` } : {}),
      };
    default: {
      const unreachable: never = op.decision.action;
      return unreachable;
    }
  }
}

function withOperation(result: CallToolResult, operationId: string): CallToolResult {
  return { ...result, _meta: { ...result._meta, "opledger/operation": operationId } };
}

function attemptLine(tool: string, op: OperationView, sent: UpstreamCall): string {
  const what = sent.outcome === "answered" ? (sent.result.isError ? "tool error" : "answered") : sent.outcome;
  return (
    `opledger mcp: ${tool} attempt ${op.attempt} of ${op.id}: ${what}; ` +
    `now ${op.phase}, gate ${op.decision.action}: ${op.decision.reason}`
  );
}
