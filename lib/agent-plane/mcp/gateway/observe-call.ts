// A call of an observe-mode tool: recorded like any other, forwarded whatever the gate says, answered with the
// upstream's own answer, and what enforcing would have done kept on the operation for the console.
import { McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { dispatchOperation } from "@/lib/ledger/commands/dispatch";
import { observedPlanInput } from "@/lib/ledger/commands/observe";
import { reportOutcome } from "@/lib/ledger/commands/outcome";
import { planOperation } from "@/lib/ledger/commands/plan";
import { LedgerError } from "@/lib/ledger/errors";
import type { OperationView } from "@/lib/ledger/reads/operation-view";
import { planInputOf, type GatewayCall, type GatewayContext } from "./call-tool";
import { upstreamReport } from "./upstream-report";

/** Planned and dispatched; a second try covers the same call planned at the same moment by another request. */
async function plannedAndDispatched(ctx: GatewayContext, call: GatewayCall, now: () => Date): Promise<OperationView> {
  for (let tries = 0; ; tries++) {
    // Observe mode records every call as its own operation, so a repeat is found by its key whatever made it.
    const planned = { ...planInputOf(ctx, { ...call, byDefault: false }), idempotencyKey: call.key };
    const input = await observedPlanInput(ctx.ledger, planned, ctx.actor, now());
    try {
      const { operation } = await planOperation(ctx.ledger, input, ctx.actor, now());
      const dispatched = await dispatchOperation(
        ctx.ledger,
        operation.id,
        { fence: operation.fence },
        ctx.actor,
        now(),
      );
      if ("refused" in dispatched) throw dispatched.refused;
      return dispatched.operation;
    } catch (error) {
      if (!(error instanceof LedgerError) || tries > 0) throw error;
    }
  }
}

export async function observeCall(ctx: GatewayContext, call: GatewayCall): Promise<CallToolResult> {
  const now = ctx.now ?? (() => new Date());
  const operation = await plannedAndDispatched(ctx, call, now);
  const sent = await ctx.upstreams.callUpstreamTool(call.upstream, call.tool, call.args, {
    timeoutMs: call.contract.timeoutMs,
    ...(call.meta ? { meta: call.meta } : {}),
  });
  const reported = await reportOutcome(
    ctx.ledger,
    operation.id,
    { fence: operation.fence, ...upstreamReport(sent) },
    ctx.actor,
    now(),
  );
  ctx.log(
    `opledger mcp (observing): ${call.name} ${reported.id}: ${sent.outcome}, now ${reported.phase}` +
      (reported.wouldHave ? `; enforcing would have: ${reported.wouldHave.code}` : ""),
  );
  const meta = {
    "opledger/operation": reported.id,
    "opledger/mode": "observe",
    ...(reported.wouldHave ? { "opledger/wouldHave": reported.wouldHave } : {}),
  };
  switch (sent.outcome) {
    case "answered":
      return { ...sent.result, _meta: { ...sent.result._meta, ...meta } };
    case "refused":
      // What the upstream answered, as it answered it: observe mode changes nothing the client sees.
      throw new McpError(sent.code, sent.message);
    case "not_sent":
    case "no_answer":
      return {
        content: [{ type: "text", text: `${call.name} did not answer: ${sent.reason}` }],
        isError: true,
        _meta: meta,
      };
    default: {
      const unreachable: never = sent;
      return unreachable;
    }
  }
}
