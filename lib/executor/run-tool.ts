// runTool: runs one side-effecting tool call through the ledger API (plan, claim, dispatch, call, report) and obeys the
// gate.
import { runAttempts } from "./attempt-loop";
import { ApiProblem, type Lease } from "./client";
import { LeaseKeeper } from "./lease-keeper";
import { snapshot } from "./operation-snapshot";
import type { CallProvider } from "./provider";
import { prepareRun, type RunToolOptions, type ToolRun } from "./run-options";
import { leaseLost, resultFor, type RunToolResult } from "./run-result";

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
  return start(run, args);
}

/** Plans, claims, and runs the attempts while the lease is kept alive. */
async function start(run: ToolRun, args: unknown): Promise<RunToolResult> {
  run.signal?.throwIfAborted();
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
  await run.options.onStep?.({ step: "planned", operation: planned, fence: null });
  // A finished operation (a re-run with the same key) is answered from the ledger: nothing is sent again.
  if (planned.decision.action === "STOP") return resultFor(planned, planned.decision);

  let lease: Lease;
  try {
    lease = await run.client.claim(planned.id, { workerId: run.workerId, leaseMs: run.leaseMs }, run.signal);
  } catch (error) {
    if (error instanceof ApiProblem && error.code === "lease_held") {
      return leaseLost(await snapshot(run.client, planned), "lease_held", error.decision);
    }
    if (error instanceof ApiProblem && (error.code === "already_finished" || error.code === "approval_expired")) {
      // Finished between plan and claim (another worker, a person rejected it, or its approval request expired).
      const operation = await snapshot(run.client, planned);
      return resultFor(operation, operation.decision);
    }
    throw error;
  }
  const fence = lease.fence;
  await run.options.onStep?.({ step: "claimed", operation: lease.operation ?? planned, fence });

  const keeper = new LeaseKeeper(run.client, planned.id, fence, run.leaseMs, run.heartbeatEveryMs);
  keeper.start();
  try {
    return await runAttempts(run, planned, fence, keeper);
  } finally {
    await keeper.stop();
  }
}
