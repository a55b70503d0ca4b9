// The part of a run after the operation is planned: claim the lease and run the attempts while it is kept alive, for
// runTool (which planned it) and runOperation (which runs one planned elsewhere, such as a person's replay).
import { runAttempts } from "./attempt-loop";
import { ApiProblem, type Lease, type Operation } from "./client";
import { LeaseKeeper } from "./lease-keeper";
import { snapshot } from "./operation-snapshot";
import type { ToolRun } from "./run-options";
import { leaseLost, resultFor, type RunToolResult } from "./run-result";

export async function claimAndRun(run: ToolRun, planned: Operation): Promise<RunToolResult> {
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
