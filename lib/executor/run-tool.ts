// runTool: runs one side-effecting tool call through the ledger API (plan, claim, dispatch, call, report) and obeys the
// gate.
import type { Span } from "@opentelemetry/api";
import { claimAndRun } from "./claim-and-run";
import type { CallProvider } from "./provider";
import { prepareRun, type RunToolOptions, type ToolRun } from "./run-options";
import type { RunToolResult } from "./run-result";
import { inExecutorSpan } from "./tracing";

// runTool's signature names these, so callers import them from here (and from the executor's index).
export type { CallProvider, ProviderCallContext, ProviderError, ProviderResult } from "./provider";
export type { RunStep, RunStepEvent, RunToolOptions } from "./run-options";
export type { LeaseLossCode, OperationSummary, RunToolResult } from "./run-result";

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
  const run = prepareRun(tool, callProvider, options);
  const attributes = { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool };
  return inExecutorSpan(`execute_tool ${tool}`, attributes, (span) => start(run, args, span));
}

/** Plans, then claims and runs the attempts while the lease is kept alive. */
async function start(run: ToolRun, args: unknown, span: Span): Promise<RunToolResult> {
  run.signal?.throwIfAborted();
  const { runId, runAllowance } = run.options;
  if (runId !== undefined && runAllowance !== undefined) {
    await run.client.putRunAllowance(runId, runAllowance, run.signal);
  }
  const { operation: planned } = await run.client.planOperation(
    {
      tool: run.tool,
      args,
      idempotencyKey: run.options.idempotencyKey,
      runId: run.options.runId,
      agentId: run.options.agentId,
    },
    run.signal,
  );
  span.setAttribute("gen_ai.tool.call.id", planned.id);
  await run.options.onStep?.({ step: "planned", operation: planned, fence: null });
  return claimAndRun(run, planned);
}
