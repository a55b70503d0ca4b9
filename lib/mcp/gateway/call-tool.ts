// One `tools/call` through the gateway, which is the executor: plan, claim, dispatch, call the upstream, report the
// outcome, retry what the gate allows within the call's deadline, and answer the model.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { KeyActor } from "@/lib/auth/api-keys";
import { dispatchOperation } from "@/lib/ledger/commands/dispatch";
import type { OutcomeInput } from "@/lib/ledger/commands/outcome";
import { reportOutcomeInRun } from "@/lib/ledger/runs/run-outcome";
import { planOperation, type PlanInput } from "@/lib/ledger/commands/plan";
import type { ContractView } from "@/lib/ledger/contracts/contract-schema";
import { LedgerError, type LedgerErrorCode } from "@/lib/ledger/errors";
import type { Ledger } from "@/lib/ledger/ledger";
import type { OperationView } from "@/lib/ledger/reads/operation-view";
import type { Upstreams } from "@/lib/mcp/upstreams/registry";
import type { UpstreamCall } from "@/lib/mcp/upstreams/types";
import { refusalResult, type GatewayCode, type GatewayRefusal } from "./model-answer";
import { answerFromState } from "./operation-answer";
import { upstreamReport } from "./upstream-report";

/** The lease outlives the call's deadline by this much, so the gateway's own report is never refused as late. */
const LEASE_MARGIN_MS = 5000;
/** Below this, another attempt could not get an answer before the deadline. */
const MIN_ATTEMPT_MS = 100;

export interface GatewayContext {
  ledger: Ledger;
  actor: KeyActor;
  upstreams: Pick<Upstreams, "callUpstreamTool" | "tools" | "unavailable" | "list" | "client">;
  /** This gateway instance as a worker: `mcp:<host>:<pid>`. */
  worker: string;
  log: (line: string) => void;
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
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

/** The run lease of a call: its whole deadline and a margin, so the gateway's own report is never refused as late. */
function leaseMsFor(contract: Pick<ContractView, "timeoutMs">): number {
  return contract.timeoutMs + LEASE_MARGIN_MS;
}

/** The plan of a gateway call, with the claim in the same transaction: the key, the run, `via: "mcp"`. */
export function planInputOf(ctx: GatewayContext, call: GatewayCall): PlanInput & { idempotencyKey: string } {
  return {
    tool: call.name,
    args: call.args,
    idempotencyKey: call.key,
    runId: call.run,
    via: "mcp",
    claim: { workerId: ctx.worker, leaseMs: leaseMsFor(call.contract) },
  };
}

/**
 * The calls this instance is running, by tool and key. A claim by the lease's own owner is granted, so the same call
 * sent again while the first is at the upstream (a client retrying on its own timeout) would take the lease from the
 * first under this instance's worker id; the first call's outcome would then be refused as stale and the operation end
 * UNKNOWN. The later call waits for the earlier one and is answered from the ledger. Other instances have worker ids
 * of their own, which the ledger refuses the live lease.
 */
const running = new Map<string, Promise<CallToolResult>>();

export async function callThroughGateway(ctx: GatewayContext, call: GatewayCall): Promise<CallToolResult> {
  const slot = `${call.name}\n${call.key}`;
  for (let earlier = running.get(slot); earlier; earlier = running.get(slot)) await earlier.catch(() => undefined);
  const result = runGatewayCall(ctx, call);
  running.set(slot, result);
  try {
    return await result;
  } finally {
    if (running.get(slot) === result) running.delete(slot);
  }
}

async function runGatewayCall(ctx: GatewayContext, call: GatewayCall): Promise<CallToolResult> {
  const now = ctx.now ?? (() => new Date());
  const sleep = ctx.sleep ?? wait;
  const started = now().getTime();
  const deadline = started + call.contract.timeoutMs;
  let operation: OperationView;
  try {
    const planned = await planOperation(ctx.ledger, planInputOf(ctx, call), ctx.actor, now());
    operation = planned.operation;
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    if (error.code === "idempotency_key_reused") {
      return refusalResult({
        code: "idempotency_key_reused",
        tool: call.name,
        ...(error.extra.operationId ? { operationId: error.extra.operationId } : {}),
      });
    }
    // The same call again, and its operation cannot be run now (finished, expired, or running elsewhere).
    if (!CLAIM_REFUSALS.has(error.code)) throw error;
    return answerFromState(ctx.ledger, ctx.actor, call.name, call.key, now());
  }
  const fence = operation.fence;
  let lastAnswer: CallToolResult | null = null;
  for (;;) {
    const dispatched = await dispatchOperation(ctx.ledger, operation.id, { fence }, ctx.actor, now());
    if ("refused" in dispatched) {
      const { code, extra } = dispatched.refused;
      const decision = extra.decision;
      const retryAfterMs = decision?.retryAfterMs ?? 0;
      if (code === "retry_not_due" && now().getTime() + retryAfterMs + MIN_ATTEMPT_MS < deadline) {
        await sleep(retryAfterMs);
        continue;
      }
      if (code === "already_finished") return answerFromState(ctx.ledger, ctx.actor, call.name, call.key, now());
      const answer = MODEL_CODES[code];
      if (answer === undefined) throw dispatched.refused;
      return refusalResult({
        code: answer,
        tool: call.name,
        operationId: operation.id,
        ...(decision ? { decision } : {}),
        ...(lastAnswer ? { upstream: lastAnswer } : {}),
      });
    }
    operation = dispatched.operation;
    const remaining = Math.max(MIN_ATTEMPT_MS, deadline - now().getTime());
    // Every attempt carries the operation's one key, so an upstream that dedupes by key converges (IDEMPOTENT).
    const sent = await ctx.upstreams.callUpstreamTool(call.upstream, call.tool, call.args, {
      timeoutMs: remaining,
      meta: { ...call.meta, "opledger/idempotencyKey": operation.idempotencyKey, "opledger/operation": operation.id },
    });
    lastAnswer = sent.outcome === "answered" && sent.result.isError ? sent.result : null;
    const report: OutcomeInput = { fence, ...upstreamReport(sent) };
    operation = await reportOutcomeInRun(ctx.ledger, operation.id, report, ctx.actor, now());
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
  return `opledger mcp: ${tool} attempt ${op.attempt} of ${op.id}: ${what}; now ${op.phase}, gate ${op.decision.action}: ${op.decision.reason}`;
}
